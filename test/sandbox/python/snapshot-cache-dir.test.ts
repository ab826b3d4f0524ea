/**
 * Where the interpreter snapshot is cached: beside pyodide in node_modules by default, or in the
 * folder `CODEGEN_SANDBOX_CACHE_DIR` names. A value Deno's comma-separated read list could
 * misread, or a relative one, is refused with the variable's name. (That a moved cache is used
 * by real runs is checked by test/package/commonjs-consumer.test.ts.) And every path given to
 * Deno's --allow-read (Pyodide, runner, shared folder, snapshot) is refused with a comma in it.
 */
import { describe, expect, it } from "vitest";
import { CACHE_DIR_VARIABLE, checkDenoReadPaths, resolvePythonPaths, snapshotCacheDir } from "../../../src/sandbox/python/host/deno-paths.js";
import { denoArgs } from "../../../src/sandbox/python/host/deno-process.js";
import { EngineSetupError } from "../../../src/sandbox/python/host/errors.js";

const pyodideDir = "/app/node_modules/pyodide/";

describe("the snapshot cache folder", () => {
  it("is node_modules/.cache/codegen-sandbox by default (also when the variable is empty)", () => {
    expect(snapshotCacheDir(pyodideDir, {})).toBe("/app/node_modules/.cache/codegen-sandbox");
    expect(snapshotCacheDir(pyodideDir, { [CACHE_DIR_VARIABLE]: "" })).toBe("/app/node_modules/.cache/codegen-sandbox");
  });

  it("is the folder CODEGEN_SANDBOX_CACHE_DIR names", () => {
    expect(snapshotCacheDir(pyodideDir, { CODEGEN_SANDBOX_CACHE_DIR: "/var/cache/cgs" })).toBe("/var/cache/cgs");
  });

  for (const bad of ["relative/cache", "/tmp/a,/etc", "/tmp/a\0b"]) {
    it(`refuses ${JSON.stringify(bad)} and names the variable`, () => {
      const call = () => snapshotCacheDir(pyodideDir, { CODEGEN_SANDBOX_CACHE_DIR: bad });
      expect(call).toThrow(EngineSetupError);
      expect(call).toThrow(/CODEGEN_SANDBOX_CACHE_DIR must be an absolute folder path without commas/);
    });
  }
});

describe("every path of Deno's --allow-read list", () => {
  const good = resolvePythonPaths();

  it("passes for the paths of this install", () => {
    expect(() => checkDenoReadPaths(good)).not.toThrow();
    expect(denoArgs(good, false).find((arg) => arg.startsWith("--allow-read="))).toBe(
      `--allow-read=${good.pyodideDir},${good.runnerDir},${good.sharedDir},${good.snapshotFile}`,
    );
  });

  const cases = [
    ["pyodideDir", "the Pyodide package folder", "/srv/app,/etc/node_modules/pyodide/"],
    ["runnerDir", "the runner's folder", "/srv/a,b/dist/src/sandbox/python/deno"],
    ["sharedDir", "the runner's shared folder", "/srv/a,b/dist/src/sandbox/python/shared"],
    ["snapshotFile", "the snapshot file", "/var/cache/a,b/pyodide.snapshot"],
  ] as const;
  for (const [key, what, path] of cases) {
    it(`refuses a comma in ${key}, naming the path and what to do (also where the arguments are built)`, () => {
      const paths = { ...good, [key]: path };
      for (const call of [() => checkDenoReadPaths(paths), () => denoArgs(paths, false)]) {
        expect(call).toThrow(EngineSetupError);
        expect(call).toThrow(`${what} is ${JSON.stringify(path)}: Deno's --allow-read list is comma-separated`);
      }
      expect(() => checkDenoReadPaths(paths)).toThrow(key === "snapshotFile" ? /set CODEGEN_SANDBOX_CACHE_DIR/ : /install .* in a folder whose path has no commas/);
    });
  }
});

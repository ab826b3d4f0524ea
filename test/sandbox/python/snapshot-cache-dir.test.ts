/**
 * Where the interpreter snapshot is cached: beside pyodide in node_modules by default, or in the
 * folder `CODEGEN_SANDBOX_CACHE_DIR` names. A value Deno's comma-separated read list could
 * misread, or a relative one, is refused with the variable's name. (That a moved cache is used
 * by real runs is checked by test/package/commonjs-consumer.test.ts.)
 */
import { describe, expect, it } from "vitest";
import { CACHE_DIR_VARIABLE, snapshotCacheDir } from "../../../src/sandbox/python/host/deno-paths.js";
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

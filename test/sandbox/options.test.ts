import { afterAll, describe, expect, it } from "vitest";
import { InvalidOptionError, SandboxDisposedError } from "../../src/errors.js";
import { createSandbox, resolveRunOptions } from "../../src/sandbox/index.js";

describe("resolveRunOptions", () => {
  it("fills the documented defaults", () => {
    const o = resolveRunOptions(undefined);
    expect(o).toMatchObject({
      language: "javascript",
      timeoutMs: 5000,
      memoryLimitBytes: 64 * 1024 * 1024,
      maxOutputBytes: 1024 * 1024,
      globals: {},
      hostFunctions: {},
      globalsJson: "{}",
    });
  });

  it("lets a run's options win over the sandbox defaults", () => {
    expect(resolveRunOptions({ timeoutMs: 10 }, { timeoutMs: 20, language: "typescript" })).toMatchObject({ timeoutMs: 10, language: "typescript" });
  });

  it("names an unknown language and lists the valid ones", () => {
    expect(() => resolveRunOptions({ language: "cobol" as never })).toThrowError(InvalidOptionError);
    expect(() => resolveRunOptions({ language: "cobol" as never })).toThrowError(/"language".*"javascript", "typescript", "python"/);
  });

  it.each([
    ["timeoutMs", -1],
    ["timeoutMs", Number.NaN],
    ["memoryLimitBytes", 0],
    ["maxOutputBytes", Number.POSITIVE_INFINITY],
    ["timeoutMs", "100"],
  ])("rejects %s = %s", (option, value) => {
    expect(() => resolveRunOptions({ [option]: value })).toThrowError(new RegExp(`"${option}"`));
  });

  it.each([
    [{ f: () => 1 }, "globals.f"],
    [{ n: 10n }, "globals.n"],
    [{ deep: { list: [1, undefined] } }, "globals.deep.list[1]"],
    [{ when: new Date() }, "globals.when"],
    [{ x: Number.NaN }, "globals.x"],
  ])("names the offending key of non-JSON globals (%#)", (globals, key) => {
    expect(() => resolveRunOptions({ globals: globals as never })).toThrowError(`"${key}"`);
  });

  it("names a cycle in globals", () => {
    const a: Record<string, unknown> = {};
    a.self = a;
    expect(() => resolveRunOptions({ globals: { a } as never })).toThrowError(/"globals\.a\.self".*cycles/);
  });

  it("rejects host functions that are not functions", () => {
    expect(() => resolveRunOptions({ hostFunctions: { add: 1 as never } })).toThrowError(/"hostFunctions\.add"/);
    expect(() => resolveRunOptions({ hostFunctions: { "not a name": () => 1 } })).toThrowError(/hostFunctions\.not a name/);
  });
});

describe("misuse of a sandbox", () => {
  const sandbox = createSandbox({ poolSize: 1 });
  afterAll(() => sandbox.dispose());

  it("rejects a bad pool size and bad defaults at creation", () => {
    expect(() => createSandbox({ poolSize: 0 })).toThrowError(/"poolSize"/);
    expect(() => createSandbox({ poolSize: 1.5 })).toThrowError(/"poolSize"/);
    expect(() => createSandbox({ defaults: { timeoutMs: -5 } })).toThrowError(/"defaults\.timeoutMs"/);
  });

  it("rejects code that is not a string", async () => {
    await expect(sandbox.run(42 as never)).rejects.toThrowError(/"code"/);
  });

  it("throws SandboxDisposedError after dispose", async () => {
    const s = createSandbox({ poolSize: 1 });
    expect((await s.run("1")).result).toBe(1);
    await s.dispose();
    expect(s.disposed).toBe(true);
    await expect(s.run("1")).rejects.toThrowError(SandboxDisposedError);
    await expect(s.check("1")).rejects.toThrowError(SandboxDisposedError);
    await expect(s.createSession()).rejects.toThrowError(SandboxDisposedError);
    await expect(s.warm()).rejects.toThrowError(SandboxDisposedError);
  });

  it("checks code without running it", async () => {
    expect(await sandbox.check("const x: number = 1", { language: "typescript" })).toEqual({ ok: true, language: "typescript" });
    const bad = await sandbox.check("let = ;");
    expect(bad).toMatchObject({ ok: false, status: "syntax_error" });
    expect(await sandbox.check("import os from 'os'")).toMatchObject({ ok: false, status: "forbidden" });
  });
});

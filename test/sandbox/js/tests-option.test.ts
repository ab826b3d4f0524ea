import { afterAll, describe, expect, it } from "vitest";
import { createSandbox } from "../../../src/index.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

describe("RunOptions.tests (JavaScript/TypeScript)", () => {
  it("runs the tests as their own evaluation: a program without a final semicolon cannot change how they parse", async () => {
    const program = "function add(a, b) { return a + b }\nconsole.log(add(1, 2))";
    const tests = "[[1, 2, 3], [2, 2, 4]].forEach(([a, b, c]) => console.assert(add(a, b) === c));\nif (add(2, 3) !== 5) throw new Error('add is wrong');\nconsole.log('tests passed');";
    const r = await sandbox.run(program, { tests });
    expect(r.status).toBe("success");
    expect(r.stdout).toBe("3\n");
    expect(r.tests).toMatchObject({ status: "passed", stdout: "tests passed\n", stderr: "", total: 2, passed: 2 });
  });

  it("keeps the program's result and output apart from the tests'", async () => {
    const r = await sandbox.run("console.log(42);\n'program value'", { tests: "console.log('in tests');\n'tests value'" });
    expect(r).toMatchObject({ status: "success", stdout: "42\n", result: "program value" });
    expect(r.tests).toMatchObject({ status: "passed", stdout: "in tests\n" });
  });

  it("lets the tests see a script's top-level function, const, let and class", async () => {
    const program = "function f() { return 1; }\nconst c = 2;\nlet l = 3;\nclass K { get v() { return 4; } }";
    const r = await sandbox.run(program, { tests: "if (f() + c + l + new K().v !== 10) throw new Error('not visible');" });
    expect(r.tests?.status).toBe("passed");
  });

  it("lets the tests see a module's top-level names, exported or not", async () => {
    const program = [
      "function helper(x) { return x * 2; }",
      "export function double(x) { return helper(x); }",
      "const { a, b: [bb] } = { a: 1, b: [2] };",
      "export default await Promise.resolve(double(a + bb));",
    ].join("\n");
    const r = await sandbox.run(program, { tests: "if (helper(1) !== 2 || double(2) !== 4 || a !== 1 || bb !== 2) throw new Error('not visible');" });
    expect(r).toMatchObject({ status: "success", result: 6 });
    expect(r.tests?.status).toBe("passed");
  });

  it("reports a failing test with its line in the tests text and its message, not as the program's error", async () => {
    const r = await sandbox.run("function sub(a, b) { return a - b; }", {
      tests: "const ok = 1;\n\nif (sub(3, 1) !== 4) throw new Error('sub(3, 1) should be 4');",
    });
    expect(r.status).toBe("success");
    expect(r.error).toBeUndefined();
    expect(r.tests).toMatchObject({ status: "failed", error: { name: "Error", message: "sub(3, 1) should be 4", line: 3 } });
  });

  it("locates a thrown string and a thrown plain value", async () => {
    const s = await sandbox.run("const x = 1;", { tests: "// a comment\nif (x === 1)\n  throw 'x must not be 1';" });
    expect(s.tests).toMatchObject({ status: "failed", error: { message: "Uncaught 'x must not be 1'", line: 3 } });
    const v = await sandbox.run("const x = 1;", { tests: "\nthrow { code: 7 };" });
    expect(v.tests?.status).toBe("failed");
    expect(v.tests?.error?.line).toBe(2);
    expect(v.tests?.error?.message).toMatch(/code: 7/);
  });

  it("locates an assertion helper's Error in the tests, through an await", async () => {
    const r = await sandbox.run("const f = async () => 1;", {
      tests: "function check(c, m) { if (!c) throw new Error(m); }\nconst v = await f();\ncheck(v === 2, 'f() should give 2');",
    });
    expect(r.tests).toMatchObject({ status: "failed", error: { message: "f() should give 2", line: 1 } });
  });

  it("does not run the tests when the program fails, and says why", async () => {
    const r = await sandbox.run("await Promise.reject(new Error('no data'));", { tests: "throw new Error('should not run');" });
    expect(r.status).toBe("runtime_error");
    expect(r.tests).toMatchObject({ status: "not_run", stdout: "", stderr: "" });
    expect(r.tests?.reason).toMatch(/^the program ended with status runtime_error: Error: no data, so the tests did not run$/);
    const syntax = await sandbox.run("let = ;", { tests: "1" });
    expect(syntax.tests?.status).toBe("not_run");
  });

  it("makes a limit hit by the tests the run's status, with the tests failed", async () => {
    const r = await sandbox.run("console.log('program');\n7", { tests: "for (;;) {}", timeoutMs: 300 });
    expect(r).toMatchObject({ status: "timeout", stdout: "program\n", result: 7 });
    expect(r.tests?.status).toBe("failed");
    expect(r.tests?.error?.name).toBe("TimeoutError");
  });

  it("reports a syntax error in the tests as a failed test with its line", async () => {
    const r = await sandbox.run("const a = 1;", { tests: "a;\nif (a {" });
    expect(r.status).toBe("success");
    expect(r.tests).toMatchObject({ status: "failed", error: { name: "SyntaxError", line: 2 } });
  });

  it("does not count the tests' value as a result", async () => {
    const r = await sandbox.run("1", { tests: "'x'.repeat(5000)", maxResultBytes: 100 });
    expect(r).toMatchObject({ status: "success", result: 1, tests: { status: "passed" } });
  });

  it("strips TypeScript tests like programs", async () => {
    const r = await sandbox.run("function area(w: number, h: number): number { return w * h; }", {
      language: "typescript",
      tests: "const expected: number = 12;\nif (area(3, 4) !== expected) throw new Error('area');",
    });
    expect(r.tests?.status).toBe("passed");
  });

  it("runs tests in a session call's context", async () => {
    const session = await sandbox.createSession();
    await session.run("var count = 0; function inc() { return ++count; }");
    const r = await session.run("inc();", { tests: "if (count !== 1) throw new Error('count is ' + count);" });
    expect(r.tests?.status).toBe("passed");
    const again = await session.run("inc();", { tests: "if (count !== 1) throw new Error('count is ' + count);" });
    expect(again.tests).toMatchObject({ status: "failed", error: { message: "count is 2", line: 1 } });
    await session.dispose();
  });
});

import { afterAll, describe, expect, it } from "vitest";
import { createSandbox } from "../../../src/index.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());
const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);

describe("files (JavaScript/TypeScript)", () => {
  it("has no files global without the option, and one with it (even {})", async () => {
    expect((await sandbox.run("typeof files")).result).toBe("undefined");
    const r = await sandbox.run("typeof files", { files: {} });
    expect(r.result).toBe("object");
    expect(r.files).toEqual({});
  });

  it("reads given files, writes, lists, checks and deletes; result.files is the final set", async () => {
    const r = await sandbox.run(
      [
        "const csv = files.read('data/in.csv');",
        "files.write('out/sum.txt', String(csv.split('\\n').map(Number).reduce((a, b) => a + b, 0)));",
        "files.write('tmp.txt', 'x');",
        "const had = files.exists('tmp.txt');",
        "const deleted = files.delete('tmp.txt');",
        "({ list: files.list(), had, deleted, gone: !files.exists('tmp.txt'), again: files.delete('tmp.txt') })",
      ].join("\n"),
      { files: { "data/in.csv": "1\n2\n3", "b.txt": "b" } },
    );
    expect(r.status).toBe("success");
    expect(r.result).toEqual({ list: ["b.txt", "data/in.csv", "out/sum.txt"], had: true, deleted: true, gone: true, again: false });
    expect(Object.keys(r.files!)).toEqual(["b.txt", "data/in.csv", "out/sum.txt"]);
    expect(text(r.files!["out/sum.txt"])).toBe("6");
  });

  it("round-trips binary content exactly, and UTF-8 text", async () => {
    const all = new Uint8Array(256).map((_, i) => i);
    const r = await sandbox.run(
      "const b = files.readBytes('all.bin');\n" +
        "const rev = new Uint8Array(b.length); for (let i = 0; i < b.length; i++) rev[i] = b[b.length - 1 - i];\n" +
        "files.write('rev.bin', rev);\n" +
        "files.write('sub.bin', rev.subarray(10, 20));\n" +
        "files.write('t.txt', 'héllo ✓');\n" +
        "[b.length, b[0], b[255], files.read('t.txt')]",
      { files: { "all.bin": all } },
    );
    expect(r.result).toEqual([256, 0, 255, "héllo ✓"]);
    expect([...r.files!["all.bin"]!]).toEqual([...all]);
    expect([...r.files!["rev.bin"]!]).toEqual([...all].reverse());
    expect([...r.files!["sub.bin"]!]).toEqual([...all].reverse().slice(10, 20));
    expect(text(r.files!["t.txt"])).toBe("héllo ✓");
  });

  it("gives a clear exception for a missing file", async () => {
    const r = await sandbox.run("files.read('nope.txt')", { files: {} });
    expect(r.status).toBe("runtime_error");
    expect(r.error).toMatchObject({ name: "FileError", message: "files.read: no file nope.txt (files.list() gives the files there are)", line: 1 });
  });

  it("keeps the given files when the program fails before writing", async () => {
    const r = await sandbox.run("let = ;", { files: { "a.txt": "a" } });
    expect(r.status).toBe("syntax_error");
    expect(text(r.files!["a.txt"])).toBe("a");
  });

  it("works in TypeScript, in tests, and in a session call", async () => {
    const ts = await sandbox.run("const s: string = files.read('a.txt');\nfiles.write('b.txt', s + '!');", {
      language: "typescript",
      files: { "a.txt": "a" },
      tests: "if (files.read('b.txt') !== 'a!') throw new Error('b.txt');",
    });
    expect(ts.tests?.status).toBe("passed");
    const session = await sandbox.createSession();
    await session.run("function save(name, text) { files.write(name, text); return files.list(); }");
    const call = await session.call("save", ["n.txt", "hi"], { files: { "m.txt": "m" } });
    expect(call.result).toEqual(["m.txt", "n.txt"]);
    expect(Object.keys(call.files!)).toEqual(["m.txt", "n.txt"]);
    const without = await session.call("save", ["x.txt", "x"]);
    expect(without.status).toBe("runtime_error");
    expect(without.error?.message).toMatch(/files are not available in this call/);
    await session.dispose();
  });
});

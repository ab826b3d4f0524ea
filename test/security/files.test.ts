/**
 * Hostile use of the `files` API: paths that leave the working directory, floods past the
 * caps, values that are not bytes, and a forged file set on the host's side.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createSandbox, InvalidOptionError } from "../../src/index.js";
import { invalidFileSetReason } from "../../src/sandbox/js/shared/file-rules.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

describe("files: hostile programs", () => {
  it("refuses paths that are absolute, climb out, or are odd", async () => {
    const paths = ["/etc/passwd", "../x", "a/../../x", "a//b", "./a", "", "a\\b", "a\u0000b", "x".repeat(2000)];
    const r = await sandbox.run(
      `const out = [];\nfor (const p of ${JSON.stringify(paths)}) {\n  for (const op of [() => files.write(p, 'x'), () => files.read(p), () => files.delete(p)]) {\n    try { op(); out.push('allowed ' + p); } catch (e) { out.push(e.name); }\n  }\n}\nout`,
      { files: {} },
    );
    expect(r.status).toBe("success");
    expect((r.result as string[]).every((x) => x === "FileError")).toBe(true);
    expect(r.files).toEqual({});
  });

  it("enforces the per-file cap on strings (without copying them out) and on bytes", async () => {
    const r = await sandbox.run(
      "const out = [];\n" +
        "try { files.write('a', 'x'.repeat(2000)); } catch (e) { out.push(e.message); }\n" +
        "try { files.write('b', new Uint8Array(2000)); } catch (e) { out.push(e.message); }\n" +
        "files.write('c', 'x'.repeat(1000));\nout",
      { files: {}, maxFileBytes: 1000 },
    );
    expect(r.result).toEqual([
      "files.write: a would be at least 2000 bytes, over the 1000-byte limit per file (maxFileBytes); write less".replace(" at least", ""),
      "files.write: b would be 2000 bytes, over the 1000-byte limit per file (maxFileBytes); write less",
    ]);
    expect(Object.keys(r.files!)).toEqual(["c"]);
  });

  it("bounds a flood of files by the total cap (paths count too)", async () => {
    const r = await sandbox.run(
      "let n = 0, message = '';\ntry { for (;;) { files.write('f' + n, ''); n++; } } catch (e) { message = e.message; }\n({ n, message })",
      { files: {}, maxTotalFileBytes: 10_000 },
    );
    const { n, message } = r.result as { n: number; message: string };
    expect(n).toBeGreaterThan(1000);
    expect(n).toBeLessThan(5000);
    expect(message).toMatch(/over the 10000-byte limit for all files \(maxTotalFileBytes\)/);
    expect(Object.keys(r.files!).length).toBe(n);
  });

  it("keeps NUL characters in written text exactly (no truncated content or path)", async () => {
    const r = await sandbox.run("files.write('n.txt', 'a\\0b');\nfiles.read('n.txt').length", { files: {} });
    expect(r.result).toBe(3);
    expect([...r.files!["n.txt"]!]).toEqual([97, 0, 98]);
  });

  it("refuses data that is not a string or bytes, and survives hostile arguments", async () => {
    const r = await sandbox.run(
      "const out = [];\n" +
        "for (const d of [42, null, {}, [1, 2], new Uint16Array(2), { toString() { throw 1; } }]) {\n" +
        "  try { files.write('x', d); out.push('allowed'); } catch (e) { out.push(e.name); }\n" +
        "}\n" +
        "try { files.read({ toString() { return '../x'; } }); } catch (e) { out.push(e.name); }\nout",
      { files: {} },
    );
    expect(r.status).toBe("success");
    expect(r.result).toEqual(["TypeError", "TypeError", "TypeError", "TypeError", "TypeError", "TypeError", "FileError"]);
  });

  it("cannot replace the files API to forge what it wrote", async () => {
    const r = await sandbox.run(
      "let replaced = true; try { files.write = () => {}; } catch { replaced = false; }\nfiles.write('real.txt', 'r');\nreplaced",
      { files: {} },
    );
    expect(Object.keys(r.files!)).toEqual(["real.txt"]);
  });

  it("checks a file set again on the host: forged oversize, traversal or non-bytes sets are refused", () => {
    const limits = { maxFileBytes: 10, maxTotalFileBytes: 20 };
    expect(invalidFileSetReason({ a: new Uint8Array(5) }, limits)).toBeUndefined();
    expect(invalidFileSetReason({ a: new Uint8Array(11) }, limits)).toMatch(/over the maxFileBytes limit/);
    expect(invalidFileSetReason({ a: new Uint8Array(10), b: new Uint8Array(10) }, limits)).toMatch(/maxTotalFileBytes/);
    expect(invalidFileSetReason({ "../a": new Uint8Array(1) }, limits)).toMatch(/not valid/);
    expect(invalidFileSetReason({ a: "text" }, limits)).toMatch(/does not hold bytes/);
    expect(invalidFileSetReason([], limits)).toMatch(/not an object/);
  });

  it("rejects caller files over the caps with a clear error", async () => {
    await expect(sandbox.run("1", { files: { a: "x".repeat(20) }, maxFileBytes: 10 })).rejects.toThrow(InvalidOptionError);
    await expect(sandbox.run("1", { files: { "../a": "x" } })).rejects.toThrow(/relative path/);
  });
});

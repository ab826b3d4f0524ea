/**
 * `files` for Python: placed in the working directory before the program (ordinary `open`,
 * `os.listdir`, `pathlib`), read back whole after it, binary exact, capped on the way in and
 * on the way back (checked by the host), and never left for the next run.
 */
import { describe, expect, it } from "vitest";
import { InvalidOptionError } from "../../../src/errors.js";
import { resolveFiles } from "../../../src/sandbox/options.js";
import { options, useWarmPythonEngine } from "./support.js";

const engine = useWarmPythonEngine();

const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);

describe("Python files", { timeout: 60_000 }, () => {
  it("reads given files with open, os.listdir and pathlib, and returns the final set", async () => {
    const r = await engine.run(
      [
        "import os, pathlib",
        "names = sorted(os.listdir('.'))",
        "with open('data/in.csv') as f:",
        "    rows = f.read().splitlines()",
        "pathlib.Path('out').mkdir()",
        "pathlib.Path('out/sum.txt').write_text(str(sum(int(r) for r in rows)))",
        "os.remove('notes.txt')",
        "[names, os.getcwd() == str(pathlib.Path.cwd())]",
      ].join("\n"),
      options({ files: resolveFiles({ "data/in.csv": "1\n2\n3\n", "notes.txt": "drop me" }) }),
    );
    expect(r.status).toBe("success");
    expect(r.result).toEqual([["data", "notes.txt"], true]);
    expect(Object.keys(r.files ?? {}).sort()).toEqual(["data/in.csv", "out/sum.txt"]);
    expect(text(r.files?.["out/sum.txt"])).toBe("6");
  });

  it("round-trips binary content exactly", async () => {
    const all = new Uint8Array(256).map((_, i) => i);
    const r = await engine.run(
      "data = open('all.bin', 'rb').read()\nopen('rev.bin', 'wb').write(bytes(reversed(data)))\nlen(data)",
      options({ files: { "all.bin": all } }),
    );
    expect(r.result).toBe(256);
    expect([...(r.files?.["all.bin"] ?? [])]).toEqual([...all]);
    expect([...(r.files?.["rev.bin"] ?? [])]).toEqual([...all].reverse());
  });

  it("gives files: {} back when the option was given and nothing was written, and no files without it", async () => {
    const given = await engine.run("1", options({ files: {} }));
    expect(given.files).toEqual({});
    const without = await engine.run("open('x.txt', 'w').write('x')\n1", options());
    expect(without.files).toBeUndefined();
  });

  it("leaves nothing for the next run", async () => {
    await engine.run("open('left.txt', 'w').write('secret')", options({ files: {} }));
    const next = await engine.run("import os\nsorted(os.listdir('.'))", options({ files: {} }));
    expect(next.result).toEqual([]);
    expect(next.files).toEqual({});
  });

  it("ends output_limit when the program writes past maxFileBytes or maxTotalFileBytes", async () => {
    const big = await engine.run("open('big.bin', 'wb').write(b'x' * 5000)\n'wrote'", options({ files: {}, maxFileBytes: 4096 }));
    expect(big.status).toBe("output_limit");
    expect(big.error?.message).toContain("maxFileBytes");
    expect(big.files).toBeUndefined();
    const many = await engine.run("for i in range(5):\n    open('f%d' % i, 'wb').write(b'x' * 3000)", options({ files: {}, maxTotalFileBytes: 10_000 }));
    expect(many.status).toBe("output_limit");
    expect(many.error?.message).toContain("maxTotalFileBytes");
  });

  it("refuses given files over the caps with one clear error", async () => {
    await expect(engine.run("1", options({ files: { "a.bin": new Uint8Array(2000) }, maxFileBytes: 1000 }))).rejects.toThrow(InvalidOptionError);
    await expect(engine.run("1", options({ files: { a: new Uint8Array(600), b: new Uint8Array(600) }, maxTotalFileBytes: 1000 }))).rejects.toThrow(/maxTotalFileBytes/);
  });

  it("keeps a session's files between calls unless new ones are given", async () => {
    const session = await engine.createSession({ language: "python", memoryLimitBytes: 64 * 1024 * 1024, defaults: {} });
    try {
      await session.run("open('state.txt', 'w').write('1')");
      const kept = await session.run("open('state.txt').read()", { files: undefined });
      expect(kept.result).toBe("1");
      const replaced = await session.run("import os\nsorted(os.listdir('.'))", { files: { "new.txt": "n" } });
      expect(replaced.result).toEqual(["new.txt"]);
      expect(text(replaced.files?.["new.txt"])).toBe("n");
    } finally {
      await session.dispose();
    }
  });
});

/**
 * The sandbox's file store on its own: canonical paths (no way out of the root), caps on
 * bytes, entries and names, and the check of what the shell's worker sends back (data made
 * while a guest ran: anything malformed or over a cap is refused whole). Also the glob matcher
 * (no regular expressions, bounded work) and the options' errors.
 */
import { describe, expect, it } from "vitest";
import { InvalidOptionError } from "../../src/errors.js";
import { FileStore, MAX_PATH_DEPTH, normalizePath } from "../../src/deepagents/file-store.js";
import { compileGlob } from "../../src/deepagents/glob-match.js";
import { resolveCodeGenSandboxOptions } from "../../src/deepagents/options.js";

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const limits = { maxFileBytes: 100, maxTotalFileBytes: 1000, maxFiles: 10 };

describe("paths", () => {
  it("are made canonical: absolute, no empty or '.' parts", () => {
    expect(normalizePath("notes.txt")).toEqual({ path: "/notes.txt" });
    expect(normalizePath("/a//b/./c.txt/")).toEqual({ path: "/a/b/c.txt" });
    expect(normalizePath("")).toEqual({ path: "/" });
  });

  it("cannot leave the root: '..', NUL, very long names and paths, deep nesting are refused", () => {
    for (const bad of ["/../etc/passwd", "/a/../../b", "..", "/a/..", "/x\0y", `/${"n".repeat(256)}`, `/${"a/".repeat(2100)}`, "/" + Array(MAX_PATH_DEPTH + 1).fill("d").join("/")]) {
      expect(normalizePath(bad), JSON.stringify(bad.slice(0, 40))).toHaveProperty("error");
    }
    expect(normalizePath(42)).toEqual({ error: "the path is not a string" });
    expect(normalizePath(`/${"é".repeat(127)}`)).toHaveProperty("path");
    expect(normalizePath(`/${"é".repeat(128)}`)).toHaveProperty("error");
  });
});

describe("FileStore", () => {
  it("writes files with their directories, keeps the creation time on overwrite, and removes trees", () => {
    const store = new FileStore(limits);
    expect(store.writeFile("/a/b/c.txt", bytes("1"), 1000)).toBeUndefined();
    expect(store.get("/a")).toMatchObject({ kind: "dir" });
    expect(store.writeFile("/a/b/c.txt", bytes("22"), 2000)).toBeUndefined();
    expect(store.get("/a/b/c.txt")).toMatchObject({ createdMs: 1000, modifiedMs: 2000 });
    expect(store.children("/a").map(([p]) => p)).toEqual(["/a/b"]);
    expect(store.remove("/a").sort()).toEqual(["/a", "/a/b", "/a/b/c.txt"]);
    expect(store.size).toBe(0);
  });

  it("refuses a directory as a file, a file as a directory, and each cap with the number", () => {
    const store = new FileStore(limits);
    store.writeFile("/d/f", bytes("x"));
    expect(store.writeFile("/d", bytes("x"))?.code).toBe("is_directory");
    expect(store.writeFile("/d/f/g", bytes("x"))?.code).toBe("not_a_directory");
    expect(store.writeFile("/big", new Uint8Array(101))?.message).toMatch(/100-byte maxFileBytes/);
    for (let i = 0; i < 8; i++) store.writeFile(`/f${i}`, bytes("x"));
    expect(store.writeFile("/one-too-many", bytes("x"))?.message).toMatch(/maxFiles is 10/);
    const tight = new FileStore({ maxFileBytes: 100, maxTotalFileBytes: 150, maxFiles: 100 });
    expect(tight.writeFile("/a", new Uint8Array(90))).toBeUndefined();
    expect(tight.writeFile("/b", new Uint8Array(90))?.message).toMatch(/maxTotalFileBytes/);
  });

  it("round-trips bytes exactly", () => {
    const store = new FileStore(limits);
    const all = new Uint8Array(100).map((_, i) => (i * 37) % 256);
    store.writeFile("/bin", all);
    expect((store.get("/bin") as { bytes: Uint8Array }).bytes).toEqual(all);
  });

  it("records its own changes for the replica, and forgets them once taken", () => {
    const store = new FileStore(limits);
    store.writeFile("/a/x", bytes("1"));
    store.takeChanges();
    store.writeFile("/a/y", bytes("2"));
    store.remove("/a/x");
    const changes = store.takeChanges();
    expect(changes.upserts.map(([p]) => p)).toEqual(["/a/y"]);
    expect(changes.deletes).toEqual(["/a/x"]);
    expect(store.takeChanges()).toEqual({ upserts: [], deletes: [] });
  });

  it("applies a command's changes only when all of them are well formed and within the caps", () => {
    const store = new FileStore(limits);
    store.writeFile("/keep", bytes("k"));
    const file = (text: string) => ({ kind: "file" as const, bytes: bytes(text), modifiedMs: 5 });
    const dir = { kind: "dir" as const, modifiedMs: 5 };
    const refused: unknown[] = [
      null,
      { upserts: "x", deletes: [] },
      { upserts: [["/../etc/passwd", file("x")]], deletes: [] },
      { upserts: [["relative", file("x")]], deletes: [] },
      { upserts: [["/", dir]], deletes: [] },
      { upserts: [["/x", { kind: "link", modifiedMs: 1 }]], deletes: [] },
      { upserts: [["/x", { kind: "file", bytes: "not bytes", modifiedMs: 1 }]], deletes: [] },
      { upserts: [["/x", { kind: "file", bytes: bytes("x"), modifiedMs: Number.NaN }]], deletes: [] },
      { upserts: [["/big", { kind: "file", bytes: new Uint8Array(101), modifiedMs: 1 }]], deletes: [] },
      { upserts: Array.from({ length: 10 }, (_, i) => [`/n${i}`, file("x")]), deletes: [] },
      { upserts: [["/nodir/x", file("x")]], deletes: [] },
      { upserts: [["/keep/x", file("x")]], deletes: [] },
      { upserts: [], deletes: ["/../keep"] },
    ];
    for (const changes of refused) {
      expect(store.applyReplicaChanges(changes), JSON.stringify(changes)?.slice(0, 80)).toEqual(expect.any(String));
      expect(store.size).toBe(1);
    }
    expect(store.applyReplicaChanges({ upserts: [["/d", dir], ["/d/new", file("n")]], deletes: ["/keep"] })).toBeUndefined();
    expect([...store.within("/")].map(([p]) => p)).toEqual(["/d", "/d/new"]);
    // Changes from the replica are not sent back to it.
    expect(store.takeChanges()).toEqual({ upserts: [], deletes: ["/keep"] });
  });
});

describe("glob matching", () => {
  const match = (pattern: string, path: string): boolean => {
    const m = compileGlob(pattern);
    if ("error" in m) throw new Error(m.error);
    return m.matches(path);
  };

  it("supports *, ?, classes, braces, ** and escapes, dot files included", () => {
    expect(match("*.py", "a.py")).toBe(true);
    expect(match("*.py", "dir/a.py")).toBe(false);
    expect(match("**/*.py", "a.py")).toBe(true);
    expect(match("**/*.py", "x/y/a.py")).toBe(true);
    expect(match("src/**", "src/a/b")).toBe(true);
    expect(match("file?.txt", "file10.txt")).toBe(false);
    expect(match("file[0-9].txt", "file7.txt")).toBe(true);
    expect(match("file[!0-9].txt", "file7.txt")).toBe(false);
    expect(match("*.{ts,tsx}", "a.tsx")).toBe(true);
    expect(match("{a,b{c,d}}.txt", "bd.txt")).toBe(true);
    expect(match("\\*.txt", "*.txt")).toBe(true);
    expect(match("\\*.txt", "a.txt")).toBe(false);
    expect(match("*", ".hidden")).toBe(true);
    expect(match("/abs/*.md", "/abs/x.md")).toBe(true);
    expect(match("+(a|b)", "+(a|b)")).toBe(true);
  });

  it("bounds its work: huge brace expansions and long patterns are refused, costly matches end fast", () => {
    expect(compileGlob("{a,b}".repeat(9))).toHaveProperty("error");
    expect(compileGlob("a".repeat(1025))).toHaveProperty("error");
    // A pattern that takes minimatch 10.2.6 minutes: linear here.
    const started = performance.now();
    expect(match("**/".repeat(10) + "*a".repeat(20) + "b", "a".repeat(50))).toBe(false);
    expect(match("+(a|aa)".repeat(4) + "c", "a".repeat(50))).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe("options", () => {
  it("refuse bad values with an InvalidOptionError that names the option", () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ timeoutMs: -1 }, /"timeoutMs"/],
      [{ timeoutMs: 2 ** 31 }, /"timeoutMs"/],
      [{ maxOutputBytes: 1.5 }, /"maxOutputBytes"/],
      [{ shellMemoryLimitBytes: 1024 }, /"shellMemoryLimitBytes".*32 MiB/],
      [{ env: { "BAD NAME": "x" } }, /"env\.BAD NAME"/],
      [{ env: { X: 1 } }, /"env\.X"/],
      [{ initialFiles: { "/a": 5 } }, /"initialFiles\["\/a"\]"/],
      [{ sandbox: {} }, /"sandbox"/],
      ["fast", /"options"/],
    ];
    for (const [options, message] of cases) {
      expect(() => resolveCodeGenSandboxOptions(options as never)).toThrow(InvalidOptionError);
      expect(() => resolveCodeGenSandboxOptions(options as never)).toThrow(message);
    }
    expect(resolveCodeGenSandboxOptions(undefined)).toMatchObject({ timeoutMs: 30_000, maxOutputBytes: 100_000, limits: { maxFiles: 10_000 } });
  });
});

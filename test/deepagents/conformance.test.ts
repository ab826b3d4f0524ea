/**
 * The deepagents sandbox provider conformance suite, written from the expectations of
 * deepagentsjs' own `libs/standard-tests` (`@langchain/sandbox-standard-tests`, which is not on
 * the registry): lifecycle, command execution, upload/download, write, read, edit, ls, grep,
 * glob, initial files and combined workflows, against `CodeGenSandbox`. One sandbox is shared
 * (each case uses its own directory); lifecycle and initial-files cases make their own.
 *
 * Where deepagents' backends disagree, ours follows the tool contract: `glob` returns absolute
 * paths (deepagents' `glob` tool says so, and `StateBackend` does), where the standard suite
 * expects paths relative to the search base (`BaseSandbox` returns those).
 */
import { adaptSandboxProtocol, isSandboxBackend } from "deepagents";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CodeGenSandbox } from "../../src/deepagents/index.js";

const dir = (name: string): string => `/conformance/${name}`;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

let shared: CodeGenSandbox;

beforeAll(async () => {
  shared = await CodeGenSandbox.create({ timeoutMs: 15_000 });
});

afterAll(async () => {
  await shared.close();
});

/** Runs with a fresh sandbox that is closed afterwards, whatever happens. */
async function withSandbox<T>(options: Parameters<typeof CodeGenSandbox.create>[0], fn: (s: CodeGenSandbox) => Promise<T>): Promise<T> {
  const sandbox = await CodeGenSandbox.create(options);
  try {
    return await fn(sandbox);
  } finally {
    await sandbox.close();
  }
}

describe("sandbox lifecycle", () => {
  it("has a non-empty, unique id and is recognised by deepagents as a sandbox backend", async () => {
    expect(typeof shared.id).toBe("string");
    expect(shared.id.length).toBeGreaterThan(0);
    expect(isSandboxBackend(shared)).toBe(true);
    await withSandbox({}, async (other) => expect(other.id).not.toBe(shared.id));
  });

  it("is running after create and not after close; use after close throws", async () => {
    expect(shared.isRunning).toBe(true);
    const tmp = await CodeGenSandbox.create();
    expect(tmp.isRunning).toBe(true);
    await tmp.close();
    expect(tmp.isRunning).toBe(false);
    expect(() => tmp.ls("/")).toThrow(/used after it was disposed/);
    await expect(tmp.execute("echo hi")).rejects.toThrow(/used after it was disposed/);
    await tmp.close(); // a second close is harmless
  });

  it("close() during a command ends it with exit 130 and stops the shell", async () => {
    const tmp = await CodeGenSandbox.create();
    const running = tmp.execute("sleep 100");
    await new Promise((resolve) => setTimeout(resolve, 100));
    await tmp.close();
    expect(await running).toMatchObject({ exitCode: 130, output: expect.stringMatching(/closed while this command ran/) });
  });

  it("supports two-step initialization", async () => {
    const tmp = new CodeGenSandbox();
    try {
      expect(tmp.isRunning).toBe(false);
      await tmp.initialize();
      expect(tmp.isRunning).toBe(true);
      await expect(tmp.initialize()).rejects.toThrow(/already initialized/);
    } finally {
      await tmp.close();
    }
  });
});

describe("command execution", () => {
  it("runs echo", async () => {
    expect(await shared.execute('echo "hello"')).toEqual({ output: "hello\n", exitCode: 0, truncated: false });
  });

  it("returns the exit code of exit N", async () => {
    expect((await shared.execute("exit 42")).exitCode).toBe(42);
  });

  it("chains with &&, || and ;", async () => {
    const r = await shared.execute('echo "line1" && echo "line2" && echo "line3"; false || echo "after false"');
    expect(r).toEqual({ output: "line1\nline2\nline3\nafter false\n", exitCode: 0, truncated: false });
    expect((await shared.execute("false && echo never")).output).toBe("");
  });

  it("includes stderr in the output", async () => {
    expect((await shared.execute('echo "error message" >&2')).output).toContain("error message");
    expect((await shared.execute("echo out; echo err >&2")).output).toBe("out\nerr\n");
  });

  it("keeps exported variables within one command line, not across calls", async () => {
    const r = await shared.execute('export MY_VAR="test_value" && echo $MY_VAR');
    expect(r).toEqual({ output: "test_value\n", exitCode: 0, truncated: false });
    expect((await shared.execute('echo "[$MY_VAR]"')).output).toBe("[]\n");
  });

  it("starts every command line from the same shell state: nothing of the last one's variables, cd, aliases, functions or options is left (compared with a fresh sandbox)", async () => {
    const probe = "pwd; env | sort; alias; declare -F; set -o | sort; echo \"[$X][$?]\"; type f 2>&1 | head -c 20";
    const same = await shared.execute(`export X=1; alias ll='ls -l'; f() { echo f; }; set -o pipefail; ${probe}`);
    expect(same.output).toMatch(/X=1[\s\S]*alias ll=[\s\S]*declare -f f[\s\S]*pipefail +on/); // the probe sees state
    await shared.execute("export X=1; Y=2; cd /conformance; alias ll='ls -l'; f() { echo f; }; set -e; set -u; set -o pipefail; shopt -s nullglob; umask 077");
    const reused = await shared.execute(probe);
    await withSandbox({}, async (fresh) => expect(reused).toEqual(await fresh.execute(probe)));
  });

  it("answers an unknown command with exit 127 and the list of what is available", async () => {
    const r = await shared.execute("nonexistent_command_12345");
    expect(r.exitCode).toBe(127);
    expect(r.output).toContain("nonexistent_command_12345: command not found");
    expect(r.output).toMatch(/Available commands: .*\bpython3\b.*\bnode\b.*\btsc\b/);
  });

  it("pipes, redirects (>, >>, <, 2>&1), cd and pwd", async () => {
    const base = dir("cmd-pipes");
    const r = await shared.execute(
      `mkdir -p ${base} && cd ${base} && pwd && echo one > f.txt && echo two >> f.txt && cat f.txt | wc -l && wc -l < f.txt && ls nope 2>&1 | head -c 3`,
    );
    expect(r.exitCode).toBe(0);
    expect(r.output).toBe(`${base}\n2\n2\nls:`);
    expect(decoder.decode(shared.downloadFiles([`${base}/f.txt`])[0]!.content!)).toBe("one\ntwo\n");
  });

  it("rm removes files and directories from the store", async () => {
    const base = dir("cmd-rm");
    shared.write(`${base}/a/b.txt`, "x");
    shared.write(`${base}/c.txt`, "y");
    expect((await shared.execute(`rm ${base}/c.txt && rm -r ${base}/a && ls ${base} | wc -l`)).output).toBe("0\n");
    expect(shared.ls(base).files).toEqual([]);
    expect(shared.read(`${base}/c.txt`).error).toContain("not found");
  });
});

describe("file operations", () => {
  it("uploads files that commands then see", async () => {
    const path = dir("test-upload.txt");
    const results = shared.uploadFiles([[path, encoder.encode("Hello from test file!")]]);
    expect(results).toEqual([{ path, error: null }]);
    expect((await shared.execute(`cat ${path}`)).output.trim()).toBe("Hello from test file!");
  });

  it("downloads files, and says file_not_found, is_directory or invalid_path", async () => {
    const path = dir("test-download.txt");
    shared.uploadFiles([[path, encoder.encode("Download test content")]]);
    const [ok, missing, directory, bad] = shared.downloadFiles([path, dir("nonexistent-file-12345.txt"), dir(""), "/a/../etc/passwd"]);
    expect(ok!.error).toBeNull();
    expect(decoder.decode(ok!.content!)).toBe("Download test content");
    expect(missing).toEqual({ path: dir("nonexistent-file-12345.txt"), content: null, error: "file_not_found" });
    expect(directory!.error).toBe("is_directory");
    expect(bad!.error).toBe("invalid_path");
  });

  it("sees files written by a command through read, and commands see files from write and edit", async () => {
    const path = dir("fo-roundtrip.txt");
    await shared.execute(`echo "Read test content" > ${path}`);
    expect(adaptSandboxProtocol(shared)).toBeDefined();
    expect((await adaptSandboxProtocol(shared).read(path)).content).toContain("Read test content");
    shared.write(path, "Hello World");
    shared.edit(path, "Hello World", "Hello Edited World");
    expect((await shared.execute(`cat ${path}`)).output.trim()).toBe("Hello Edited World");
  });

  it("uploads several files at once", async () => {
    const paths = [1, 2, 3].map((i) => dir(`multi${i}.txt`));
    const results = shared.uploadFiles(paths.map((p, i) => [p, encoder.encode(`Content ${i + 1}`)]));
    expect(results.every((r) => r.error === null)).toBe(true);
    expect((await shared.execute(`cat ${paths.join(" ")}`)).output).toBe("Content 1Content 2Content 3");
  });

  it("round-trips binary bytes through upload, commands and download", async () => {
    const bytes = new Uint8Array(256).map((_, i) => i);
    const path = dir("bin/all-bytes.bin");
    shared.uploadFiles([[path, bytes]]);
    await shared.execute(`cp ${path} ${dir("bin/copy.bin")}`);
    const [a, b] = shared.downloadFiles([path, dir("bin/copy.bin")]);
    expect(a!.content).toEqual(bytes);
    expect(b!.content).toEqual(bytes);
    expect((await shared.execute(`wc -c < ${dir("bin/copy.bin")}`)).output.trim()).toBe("256");
  });

  it("reads and writes binary files by extension: bytes out, base64 in (as deepagents' write_file sends them)", () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 255, 10, 13]);
    const path = dir("img/pixel.png");
    expect(shared.write(path, Buffer.from(png).toString("base64"))).toEqual({ path, filesUpdate: null });
    const read = shared.read(path);
    expect(read.mimeType).toBe("image/png");
    expect(read.content).toEqual(png);
    expect(shared.readRaw(path).data).toMatchObject({ content: png, mimeType: "image/png" });
    expect(shared.write(dir("img/bad.png"), "not base64!").error).toMatch(/base64/);
  });

  it("deletes files and directories recursively", () => {
    const base = dir("fo-delete");
    shared.write(`${base}/x/y.txt`, "1");
    shared.write(`${base}/z.txt`, "2");
    expect(shared.delete(`${base}/x`)).toEqual({ path: `${base}/x`, filesUpdate: null });
    expect(shared.ls(base).files!.map((f) => f.path)).toEqual([`${base}/z.txt`]);
    expect(shared.delete(`${base}/x`).error).toBe(`Error: File '${base}/x' not found`);
  });
});

describe("write", () => {
  it("writes a new file", async () => {
    const path = dir("wt-new.txt");
    const content = "Hello, sandbox!\nLine 2\nLine 3";
    expect(shared.write(path, content)).toEqual({ path, filesUpdate: null });
    expect((await shared.execute(`cat ${path}`)).output).toBe(content);
  });

  it("creates parent directories, overwrites, keeps special characters, unicode and empty files", async () => {
    const nested = dir("wt-parents/deep/nested/dir/file.txt");
    expect(shared.write(nested, "Nested file content").error).toBeUndefined();
    const existing = dir("wt-existing.txt");
    shared.write(existing, "First content");
    expect(shared.write(existing, "Second content").error).toBeUndefined();
    const special = "Special chars: $VAR, `command`, $(subshell)\nTab\there\nBackslash: \\";
    shared.write(dir("wt-special.txt"), special);
    const unicode = "Hello \u{1F44B} \u4E16\u754C \u0645\u0631\u062D\u0628\u0627\nLine with \u00E9mojis \u{1F389}";
    shared.write(dir("wt-unicode.txt"), unicode);
    shared.write(dir("wt-empty.txt"), "");
    const r = await shared.execute(
      `cat ${nested}; echo; cat ${existing}; echo; cat ${dir("wt-special.txt")}; echo; cat ${dir("wt-unicode.txt")}; echo; [ -f ${dir("wt-empty.txt")} ] && echo exists || echo missing`,
    );
    expect(r.output).toBe(`Nested file content\nSecond content\n${special}\n${unicode}\nexists\n`);
  });

  it("handles spaces and consecutive slashes in paths", async () => {
    shared.write(dir("wt-spaces/dir with spaces/file name.txt"), "Content in file with spaces");
    expect((await shared.execute(`cat '${dir("wt-spaces/dir with spaces/file name.txt")}'`)).output).toBe("Content in file with spaces");
    shared.write(`${dir("wt-slashes")}//subdir///file.txt`, "Content");
    expect((await shared.execute(`cat ${dir("wt-slashes")}/subdir/file.txt`)).output).toBe("Content");
  });

  it("writes long content and newline-only content that wc counts", async () => {
    shared.write(dir("wt-long.txt"), Array.from({ length: 1000 }, (_, i) => `Line ${i} with some content here`).join("\n"));
    shared.write(dir("wt-newlines.txt"), "\n\n\n\n\n");
    expect((await shared.execute(`wc -l < ${dir("wt-long.txt")}; wc -l < ${dir("wt-newlines.txt")}`)).output.split("\n").map((s) => s.trim())).toEqual(["999", "5", ""]);
  });

  it("refuses a directory, a file above another path, traversal and over-cap files, with reasons", async () => {
    shared.write(dir("wt-refuse/file.txt"), "x");
    expect(shared.write(dir("wt-refuse"), "x").error).toMatch(/is a directory/);
    expect(shared.write(dir("wt-refuse/file.txt/child.txt"), "x").error).toMatch(/is a file/);
    expect(shared.write("/a/../../etc/passwd", "x").error).toMatch(/'\.\.'/);
    await withSandbox({ maxFileBytes: 10 }, async (small) => {
      expect(small.write("/big.txt", "x".repeat(11)).error).toMatch(/maxFileBytes/);
      expect(small.uploadFiles([["/big.txt", new Uint8Array(11)]])[0]!.error).toBe("permission_denied");
    });
  });
});

describe("read", () => {
  const rows = (n: number, name = "Row"): string => Array.from({ length: n }, (_, i) => `${name}_${i + 1}_content`).join("\n");

  it("reads a file, with deepagents' pagination fields", () => {
    shared.write(dir("rd-basic.txt"), "Line 1\nLine 2\nLine 3");
    expect(shared.read(dir("rd-basic.txt"))).toEqual({ content: "Line 1\nLine 2\nLine 3", mimeType: "text/plain", totalLines: 3, startLine: 1, endLine: 3 });
  });

  it("says not found for a missing file and a notice for an empty one", () => {
    expect(shared.read(dir("rd-nonexistent-xyz.txt")).error).toBe(`File '${dir("rd-nonexistent-xyz.txt")}' not found`);
    shared.write(dir("rd-empty.txt"), "");
    expect(shared.read(dir("rd-empty.txt"))).toEqual({ content: "System reminder: File exists but has empty contents", mimeType: "text/plain" });
    expect(shared.read(dir("")).error).toMatch(/is a directory/);
  });

  it("pages with offset and limit", () => {
    shared.write(dir("rd-offset.txt"), rows(20));
    const a = shared.read(dir("rd-offset.txt"), 5);
    expect(a.content).toContain("Row_6_content");
    expect(a.content).not.toContain("Row_5_content");
    const b = shared.read(dir("rd-offset.txt"), 0, 5);
    expect(b).toMatchObject({ startLine: 1, endLine: 5, nextOffset: 5, totalLines: 20 });
    expect(b.content).not.toContain("Row_6_content");
    const c = shared.read(dir("rd-offset.txt"), 10, 5);
    expect(c.content).toBe("Row_11_content\nRow_12_content\nRow_13_content\nRow_14_content\nRow_15_content");
    expect(shared.read(dir("rd-offset.txt"), 0, 0).content).toBe("");
    expect(shared.read(dir("rd-offset.txt"), 100, 10).error).toBe("Line offset 100 exceeds file length (20 lines)");
    expect(shared.read(dir("rd-offset.txt"), 20, 10).error).toMatch(/exceeds file length/);
    expect(shared.read(dir("rd-offset.txt"), -3, 1.7)).toMatchObject({ content: "Row_1_content", startLine: 1, endLine: 1 });
  });

  it("reads unicode, long lines and a large file in chunks", () => {
    shared.write(dir("rd-unicode.txt"), "Hello \u{1F44B} \u4E16\u754C\n\u041F\u0440\u0438\u0432\u0435\u0442");
    expect(shared.read(dir("rd-unicode.txt")).content).toContain("\u{1F44B}");
    shared.write(dir("rd-long-lines.txt"), `Short line\n${"x".repeat(3000)}\nAnother short line`);
    expect(shared.read(dir("rd-long-lines.txt")).content).toContain("x".repeat(3000));
    shared.write(dir("rd-chunked.txt"), Array.from({ length: 1000 }, (_, i) => `Line_${String(i).padStart(4, "0")}_content`).join("\n"));
    const middle = shared.read(dir("rd-chunked.txt"), 500, 100);
    expect(middle).toMatchObject({ startLine: 501, endLine: 600, nextOffset: 600, totalLines: 1000 });
    expect(middle.content).toContain("Line_0599_content");
    expect(middle.content).not.toContain("Line_0499_content");
    const last = shared.read(dir("rd-chunked.txt"), 900, 100);
    expect(last.nextOffset).toBeUndefined();
    expect(last.content).toContain("Line_0999_content");
  });

  it("gives the raw file data as deepagents' FileDataV2", () => {
    shared.write(dir("rd-raw.json"), '{"a":1}');
    const { data } = shared.readRaw(dir("rd-raw.json"));
    expect(data).toMatchObject({ content: '{"a":1}', mimeType: "application/json" });
    expect(Date.parse((data as { created_at: string }).created_at)).toBeGreaterThan(0);
    expect(shared.readRaw(dir("rd-missing.json")).error).toMatch(/not found/);
  });
});

describe("edit", () => {
  it("replaces a unique occurrence", () => {
    const path = dir("ed-single.txt");
    shared.write(path, "Hello world\nGoodbye world\nHello again");
    expect(shared.edit(path, "Goodbye", "Farewell")).toEqual({ path, filesUpdate: null, occurrences: 1 });
    expect(shared.read(path).content).toBe("Hello world\nFarewell world\nHello again");
  });

  it("refuses several occurrences without replaceAll, with deepagents' message, and leaves the file", () => {
    const path = dir("ed-multi-fail.txt");
    shared.write(path, "apple\nbanana\napple\norange\napple");
    expect(shared.edit(path, "apple", "pear").error).toBe(
      "Error: String 'apple' has multiple occurrences (appears 3 times) in file. Use replace_all=True to replace all instances, or provide a more specific string with surrounding context.",
    );
    expect(shared.read(path).content).not.toContain("pear");
  });

  it("replaces all occurrences with replaceAll", async () => {
    const path = dir("ed-replace-all.txt");
    shared.write(path, "apple\nbanana\napple\norange\napple");
    expect(shared.edit(path, "apple", "pear", true).occurrences).toBe(3);
    expect((await shared.execute(`cat ${path}`)).output).toBe("pear\nbanana\npear\norange\npear");
  });

  it("says not found for a missing string and a missing file", () => {
    shared.write(dir("ed-not-found.txt"), "Hello world");
    expect(shared.edit(dir("ed-not-found.txt"), "nonexistent", "replacement").error).toBe("Error: String not found in file: 'nonexistent'");
    expect(shared.edit(dir("ed-nonexistent-xyz.txt"), "old", "new").error).toBe(`Error: File '${dir("ed-nonexistent-xyz.txt")}' not found`);
  });

  it("takes strings literally: regex metacharacters, multiline, deletion, identical, unicode, whitespace, long", () => {
    const path = dir("ed-special.txt");
    shared.write(path, "Price: $100.00\nPattern: [a-z]*\nKeep\nDelete this part\nSame\nHello \u{1F44B}\nLine1    Line2\n" + "x".repeat(1000));
    for (const [from, to] of [["$100.00", "$200.00"], ["[a-z]*", "[0-9]+"], ["Delete this part\n", ""], ["Same", "Same"], ["\u{1F44B}", "\u{1F30D}"], ["    ", " "], ["x".repeat(1000), "y".repeat(1000)]]) {
      expect(shared.edit(path, from!, to!)).toMatchObject({ occurrences: 1 });
    }
    expect(shared.edit(path, "Price: $200.00\nPattern", "P")).toMatchObject({ occurrences: 1 });
    expect(shared.read(path).content).toBe("P: [0-9]+\nKeep\nSame\nHello \u{1F30D}\nLine1 Line2\n" + "y".repeat(1000));
  });

  it("fills an empty file from an empty oldString, and refuses an empty oldString otherwise", () => {
    shared.write(dir("ed-empty.txt"), "");
    expect(shared.edit(dir("ed-empty.txt"), "", "start")).toMatchObject({ occurrences: 0 });
    expect(shared.read(dir("ed-empty.txt")).content).toBe("start");
    expect(shared.edit(dir("ed-empty.txt"), "", "again").error).toBe("Error: oldString cannot be empty when file has content");
  });
});

describe("ls", () => {
  it("lists files and subdirectories with absolute paths, directories with a trailing slash", async () => {
    const base = dir("li-basic");
    shared.write(`${base}/file1.txt`, "content1");
    shared.write(`${base}/file2.txt`, "content2");
    await shared.execute(`mkdir -p '${base}/subdir'`);
    expect(shared.ls(base).files!.map(({ path, is_dir, size }) => ({ path, is_dir, size }))).toEqual([
      { path: `${base}/file1.txt`, is_dir: false, size: 8 },
      { path: `${base}/file2.txt`, is_dir: false, size: 8 },
      { path: `${base}/subdir/`, is_dir: true, size: 0 },
    ]);
    expect(shared.ls(`${base}/`).files).toHaveLength(3);
  });

  it("lists empty and missing directories as empty, hidden, unicode and special names as they are", async () => {
    await shared.execute(`mkdir -p '${dir("li-empty-dir")}'`);
    expect(shared.ls(dir("li-empty-dir"))).toEqual({ files: [] });
    expect(shared.ls(dir("li-does-not-exist-12345"))).toEqual({ files: [] });
    const base = dir("li-names");
    for (const name of [".hidden", "visible.txt", "\u6D4B\u8BD5.txt", "file(1).txt", "file with spaces.txt"]) shared.write(`${base}/${name}`, "c");
    expect(shared.ls(base).files!.map((f) => f.path.slice(base.length + 1))).toEqual([".hidden", "file with spaces.txt", "file(1).txt", "visible.txt", "\u6D4B\u8BD5.txt"]);
  });

  it("lists a large directory made by a loop", async () => {
    const base = dir("li-large");
    const r = await shared.execute(`mkdir -p '${base}' && cd '${base}' && for i in $(seq 0 49); do echo 'content' > file_$(printf '%03d' $i).txt; done`);
    expect(r.exitCode).toBe(0);
    const paths = shared.ls(base).files!.map((f) => f.path);
    expect(paths).toHaveLength(50);
    expect(paths).toContain(`${base}/file_049.txt`);
  });
});

describe("grep", () => {
  it("finds literal matches with line numbers, in nested directories", () => {
    const base = dir("gr-basic");
    shared.write(`${base}/file1.txt`, "Hello world\nGoodbye world");
    shared.write(`${base}/sub/file2.txt`, "Hello there\nGoodbye friend");
    shared.write(`${base}/sub/deeper/fruits.txt`, "apple\nbanana\napple\norange\napple");
    expect(shared.grep("Hello", base).matches).toEqual([
      { path: `${base}/file1.txt`, line: 1, text: "Hello world" },
      { path: `${base}/sub/file2.txt`, line: 1, text: "Hello there" },
    ]);
    expect(shared.grep("apple", base).matches!.map((m) => m.line)).toEqual([1, 3, 5]);
    expect(shared.grep("nonexistent_str", base)).toEqual({ matches: [] });
  });

  it("filters by a glob on the file name, and searches one file when the path names it", () => {
    const base = dir("gr-glob");
    for (const ext of ["txt", "py", "md"]) shared.write(`${base}/test.${ext}`, "pattern_match");
    expect(shared.grep("pattern_match", base, "*.py").matches!.map((m) => m.path)).toEqual([`${base}/test.py`]);
    expect(shared.grep("pattern_match", base, "*.{py,md}").matches).toHaveLength(2);
    expect(shared.grep("pattern_match", `${base}/test.md`).matches!.map((m) => m.path)).toEqual([`${base}/test.md`]);
  });

  it("takes the pattern literally and case-sensitively, unicode included", () => {
    const base = dir("gr-literal");
    shared.write(`${base}/special.txt`, "Price: $100\nPath: /usr/bin\nPattern: [a-z]*\nHello\nhello\nHELLO\n\u4E16\u754C here\ntest123\ntest456");
    expect(shared.grep("$100", base).matches!.map((m) => m.line)).toEqual([1]);
    expect(shared.grep("[a-z]*", base).matches!.map((m) => m.line)).toEqual([3]);
    expect(shared.grep("Hello", base).matches!.map((m) => m.text)).toEqual(["Hello"]);
    expect(shared.grep("\u4E16\u754C", base).matches!.map((m) => m.line)).toEqual([7]);
    expect(shared.grep("test1.3", base).matches).toEqual([]);
  });

  it("reports line numbers, skips binary files, and caps matches with truncated", () => {
    const base = dir("gr-lines");
    shared.write(`${base}/long.txt`, Array.from({ length: 100 }, (_, i) => `Line ${i + 1}`).join("\n"));
    shared.uploadFiles([[`${base}/image.png`, encoder.encode("Line 50 in a png")]]);
    expect(shared.grep("Line 50", base).matches).toEqual([{ path: `${base}/long.txt`, line: 50, text: "Line 50" }]);
    expect(shared.grep("Line", base, null, 10)).toMatchObject({ truncated: true });
    expect(shared.grep("Line", base, null, 10).matches).toHaveLength(10);
  });

  it("finds nothing in an empty directory", async () => {
    await shared.execute(`mkdir -p '${dir("gr-empty-dir")}'`);
    expect(shared.grep("anything", dir("gr-empty-dir"))).toEqual({ matches: [] });
  });
});

describe("glob", () => {
  it("matches wildcards relative to the base and returns absolute paths", () => {
    const base = dir("gl-basic");
    for (const name of ["file1.txt", "file2.txt", "file3.py", "file10.txt", "fileA.txt", ".hidden1", "sub/nested.txt", "a/b/c/d/deep.txt"]) shared.write(`${base}/${name}`, "c");
    const names = (pattern: string): string[] => shared.glob(pattern, base).files!.map((f) => f.path.slice(base.length + 1));
    expect(names("*.txt")).toEqual(["file1.txt", "file10.txt", "file2.txt", "fileA.txt"]);
    expect(names("file?.txt")).toEqual(["file1.txt", "file2.txt", "fileA.txt"]);
    expect(names("file[1-2].txt")).toEqual(["file1.txt", "file2.txt"]);
    expect(names("file[!1-2].txt")).toEqual(["fileA.txt"]);
    expect(names(".*")).toEqual([".hidden1"]);
    expect(names("**/*.txt")).toEqual(["a/b/c/d/deep.txt", "file1.txt", "file10.txt", "file2.txt", "fileA.txt", "sub/nested.txt"]);
    expect(names("**/deep.txt")).toEqual(["a/b/c/d/deep.txt"]);
    expect(names("*.{py,md}")).toEqual(["file3.py"]);
    expect(names("*.rs")).toEqual([]);
    expect(shared.glob(`${base}/sub/*.txt`).files!.map((f) => f.path)).toEqual([`${base}/sub/nested.txt`]);
  });

  it("includes directories, marked as such", async () => {
    const base = dir("gl-dirs");
    await shared.execute(`mkdir -p '${base}/dir1' '${base}/dir2'`);
    shared.write(`${base}/file.txt`, "content");
    expect(shared.glob("*", base).files!.map(({ path, is_dir }) => ({ path, is_dir }))).toEqual([
      { path: `${base}/dir1/`, is_dir: true },
      { path: `${base}/dir2/`, is_dir: true },
      { path: `${base}/file.txt`, is_dir: false },
    ]);
  });

  it("refuses a pattern that would cost too much, quickly", () => {
    const base = dir("gl-costly");
    for (let i = 0; i < 2000; i++) shared.write(`${base}/${"a".repeat(250)}${i}`, "c");
    const started = performance.now();
    // Each name costs about (250 - 125) × 125 steps of the wildcard match: 2000 names ≈ 31M.
    const r = shared.glob(`*${"a".repeat(125)}b`, base);
    expect(r.error).toMatch(/too costly/);
    expect(performance.now() - started).toBeLessThan(5000);
    expect(shared.glob(`*${"a".repeat(125)}*`, base).files).toHaveLength(2000);
    shared.delete(base);
  });
});

describe("initial files", () => {
  it("are seen by commands, read, ls and downloadFiles; a script from them runs with sh", async () => {
    const files = {
      [dir("init-test.txt")]: "Hello from initial file!",
      [dir("src/components/Button/index.tsx")]: "export const Button = () => <button>Click</button>;",
      [dir("init-script.sh")]: '#!/bin/sh\necho "Hello from initialFiles script"',
      [dir("data.bin")]: new Uint8Array([0, 1, 2, 255]),
    };
    await withSandbox({ initialFiles: files }, async (tmp) => {
      expect(tmp.isRunning).toBe(true);
      expect(await tmp.execute(`cat ${dir("init-test.txt")}`)).toEqual({ output: "Hello from initial file!", exitCode: 0, truncated: false });
      expect((await tmp.execute(`cat ${dir("src/components/Button/index.tsx")}`)).output).toContain("Button");
      expect((await tmp.execute(`sh ${dir("init-script.sh")}`)).output).toBe("Hello from initialFiles script\n");
      expect(tmp.read(dir("init-test.txt")).content).toBe("Hello from initial file!");
      expect(tmp.ls(dir("src/components")).files!.map((f) => f.path)).toEqual([`${dir("src/components/Button")}/`]);
      expect(tmp.downloadFiles([dir("data.bin")])[0]!.content).toEqual(new Uint8Array([0, 1, 2, 255]));
    });
  });

  it("may be empty; a bad one is an InvalidOptionError naming it", async () => {
    await withSandbox({ initialFiles: {} }, async (tmp) => expect((await tmp.execute('echo "Works!"')).output).toBe("Works!\n"));
    await expect(CodeGenSandbox.create({ initialFiles: { "/../x": "a" } })).rejects.toThrow(/initialFiles\["\/\.\.\/x"\]/);
    await expect(CodeGenSandbox.create({ initialFiles: { "/big": "abc" }, maxFileBytes: 2 })).rejects.toThrow(/maxFileBytes/);
  });
});

describe("integration workflows", () => {
  it("write, read, edit, read", () => {
    const path = dir("intg-workflow.txt");
    expect(shared.write(path, "Original content").error).toBeUndefined();
    expect(shared.read(path).content).toBe("Original content");
    expect(shared.edit(path, "Original", "Modified").error).toBeUndefined();
    expect(shared.read(path).content).toBe("Modified content");
  });

  it("a directory tree made by commands and by file operations, seen by ls, glob and grep", async () => {
    const base = dir("intg-complex");
    shared.write(`${base}/root.txt`, "root file");
    await shared.execute(`mkdir -p ${base}/subdir1 ${base}/subdir2 && echo "file 1" > ${base}/subdir1/file1.txt && echo "file 2" > ${base}/subdir1/file2.py && mv ${base}/subdir1/file1.txt ${base}/subdir2/file3.txt && cp ${base}/root.txt ${base}/subdir1/copy.txt`);
    expect(shared.ls(base).files!.map((f) => f.path)).toEqual([`${base}/root.txt`, `${base}/subdir1/`, `${base}/subdir2/`]);
    expect(shared.glob("**/*.txt", base).files!.map((f) => f.path)).toEqual([`${base}/root.txt`, `${base}/subdir1/copy.txt`, `${base}/subdir2/file3.txt`]);
    expect(shared.grep("file", base).matches!.length).toBeGreaterThanOrEqual(3);
  });
});

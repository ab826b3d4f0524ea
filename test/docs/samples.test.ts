/**
 * Every ```ts / ```typescript / ```js / ```mjs block in README.md and docs/*.md is true: it either
 * runs offline as a standalone ES module that imports the built package by name (TypeScript is
 * stripped of types first), or it is a passage (whitespace-normalised) of an example that
 * test/examples/examples.test.ts runs against the scripted model server. A block that does
 * neither fails with its file and line.
 */
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { delimiter, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));
const RUN_LANGUAGES = new Set(["ts", "typescript", "js", "javascript", "mjs"]);

interface Sample {
  file: string;
  line: number;
  language: string;
  code: string;
}

/** The fenced code blocks of a Markdown text with the line of their opening fence (1-based). */
function codeBlocks(file: string, text: string): Sample[] {
  const samples: Sample[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^\s*(```+|~~~+)\s*([\w-]*)/.exec(lines[i]!);
    if (!open) continue;
    const fence = open[1]!;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !lines[j]!.trimStart().startsWith(fence)) body.push(lines[j++]!);
    samples.push({ file, line: i + 1, language: open[2]!.toLowerCase(), code: body.join("\n") });
    i = j;
  }
  return samples;
}

const normalise = (text: string) => text.replace(/\s+/g, " ").trim();

const docFiles = ["README.md", ...readdirSync(join(root, "docs")).filter((name) => name.endsWith(".md")).map((name) => `docs/${name}`)];
const samples = docFiles.flatMap((file) => codeBlocks(file, readFileSync(join(root, file), "utf8"))).filter((s) => RUN_LANGUAGES.has(s.language));

/** The examples that test/examples runs, normalised, by file name. */
const testedExamples = new Map(
  [...readFileSync(join(root, "test/examples/examples.test.ts"), "utf8").matchAll(/runExample\(\s*"([^"]+)"/g)]
    .map((match) => match[1]!)
    .map((name) => [name, normalise(readFileSync(join(root, "examples", name), "utf8"))] as const),
);

const scratch = mkdtempSync(join(root, ".docs-samples-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * `npx codegen-sandbox …` in a sample is what a user who installed the package runs: npx finds
 * the package's bin in their node_modules/.bin. Here the package is the project itself, which
 * npx finds only after loading the whole dependency tree (35 s of CPU with a cold npm cache,
 * which made an MCP client's 60 s initialize time out on a loaded machine). This `npx`, first on
 * the samples' PATH, runs the built bin directly for that one name and the real npx otherwise.
 */
const shims = join(scratch, "bin");
mkdirSync(shims);
const npxShim = join(shims, "npx");
writeFileSync(
  npxShim,
  `#!/bin/sh\nif [ "$1" = "codegen-sandbox" ]; then shift; exec "${process.execPath}" "${join(root, "dist/src/cli/main.js")}" "$@"; fi\n` +
    `PATH="${process.env.PATH ?? ""}" exec npx "$@"\n`,
);
chmodSync(npxShim, 0o755);

function run(file: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  // No model settings: a sample that runs here must not need a model or the network.
  const child = spawn(process.execPath, [file], { cwd: root, env: { PATH: `${shims}${delimiter}${process.env.PATH ?? ""}`, HOME: process.env.HOME ?? "" } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
  return new Promise((resolve) =>
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

describe("code samples in README.md and docs/*.md", { timeout: 120_000 }, () => {
  it("finds the samples and the tested examples (the extractor is not blind)", () => {
    expect(samples.filter((s) => s.file === "README.md").length).toBeGreaterThanOrEqual(4);
    expect(testedExamples.size).toBeGreaterThanOrEqual(4);
  });

  it("recognises fences, languages and lines", () => {
    const text = "intro\n```ts\nconst a: number = 1;\n```\n\n```sh\nnpm test\n```\n";
    expect(codeBlocks("x.md", text)).toEqual([
      { file: "x.md", line: 2, language: "ts", code: "const a: number = 1;" },
      { file: "x.md", line: 6, language: "sh", code: "npm test" },
    ]);
  });

  for (const [index, sample] of samples.entries()) {
    const where = `${sample.file}:${sample.line}`;
    it(`${where} (${sample.language}) runs offline or is part of a tested example`, async () => {
      const wanted = normalise(sample.code);
      if ([...testedExamples.values()].some((text) => text.includes(wanted))) return;
      const typescript = sample.language === "ts" || sample.language === "typescript";
      const source = typescript
        ? ts.transpileModule(sample.code, { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext } }).outputText
        : sample.code;
      const file = join(scratch, `sample-${index}.mjs`);
      writeFileSync(file, source);
      const result = await run(file);
      const shown = `${where}: this ${sample.language} block neither runs offline as a module (exit ${result.code}) nor appears in an example that test/examples runs (${[...testedExamples.keys()].join(", ")}).\n--- stderr ---\n${result.stderr.slice(0, 3000)}\n--- stdout ---\n${result.stdout.slice(0, 1000)}\n--- ${relative(root, file)} ---\n${source.slice(0, 2000)}`;
      expect(result.code, shown).toBe(0);
    });
  }
});

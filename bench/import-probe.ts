/**
 * Imports one module in a fresh Node process and reports what that cost: the wall time of the
 * `import()`, the names it exposes, and every module URL that was resolved on the way (recorded by
 * a `resolve` hook registered through `node:module`). Used by the `entry` bench section and by
 * the entry-point test (which asserts the root loads no LangChain module).
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/** What importing one specifier cost in a fresh process. */
export interface ImportProbe {
  specifier: string;
  /** Wall time of the `import()` itself, in milliseconds (process start not included). */
  importMs: number;
  /** CPU time (user + system, all threads) the `import()` took, in milliseconds: less moved by a loaded machine than the wall time. */
  importCpuMs: number;
  /** The names the module exposes, sorted. */
  names: string[];
  /** Every URL the resolve hook saw, in order, without duplicates. */
  resolvedUrls: string[];
}

const HOOKS = `
import { appendFileSync } from "node:fs";
let out;
export async function initialize(data) { out = data.out; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(out, resolved.url + "\\n");
  return resolved;
}
`;

/**
 * Imports `specifier` from a script placed in `packageRoot` (so the package's own name resolves
 * through its `exports`, as it does for a user) and returns what it cost.
 */
export async function probeImport(specifier: string, packageRoot: string): Promise<ImportProbe> {
  const dir = await mkdtemp(join(packageRoot, ".import-probe-"));
  try {
    const out = join(dir, "resolved.txt");
    const hooks = join(dir, "hooks.mjs");
    const script = join(dir, "probe.mjs");
    await writeFile(out, "");
    await writeFile(hooks, HOOKS);
    await writeFile(
      script,
      [
        `import { register } from "node:module";`,
        `register(${JSON.stringify(pathToFileURL(hooks).href)}, import.meta.url, { data: { out: ${JSON.stringify(out)} } });`,
        `const cpu = process.cpuUsage();`,
        `const started = performance.now();`,
        `const mod = await import(${JSON.stringify(specifier)});`,
        `const importMs = performance.now() - started;`,
        `const used = process.cpuUsage(cpu);`,
        `const importCpuMs = (used.user + used.system) / 1000;`,
        `process.stdout.write(JSON.stringify({ importMs, importCpuMs, names: Object.keys(mod).sort() }));`,
      ].join("\n"),
    );
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, [script], { cwd: packageRoot, timeout: 120_000 }, (error, stdout, stderr) => {
        if (error) reject(new Error(`importing ${specifier} failed: ${stderr || error.message}`));
        else resolve(stdout);
      });
    });
    const { importMs, importCpuMs, names } = JSON.parse(stdout) as { importMs: number; importCpuMs: number; names: string[] };
    const resolvedUrls = [...new Set((await readFile(out, "utf8")).split("\n").filter((line) => line !== ""))];
    return { specifier, importMs, importCpuMs, names, resolvedUrls };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The resolved URLs that belong to LangChain packages (`@langchain/*` or `langchain`). */
export function langChainUrls(urls: string[]): string[] {
  return urls.filter((url) => /\/node_modules\/(@langchain\/|langchain\/)/.test(url));
}

/**
 * `codegen-sandbox exec [FILE|-]`: runs a file (or stdin) in the sandbox and prints its output.
 * Exit codes: 0 the run succeeded, 1 the run failed (any other status), 2 usage error.
 */
import { readFile } from "node:fs/promises";
import type { Command } from "./command.js";
import { UsageError } from "./usage-error.js";
import { parseCommandArgs } from "./args.js";
import { LANGUAGES, type ExecutionResult, type Language } from "../sandbox/types.js";

const HELP = `usage: codegen-sandbox exec [FILE|-] [options]
Runs FILE (or stdin when FILE is "-" or missing) in the sandbox.
  --language javascript|typescript|python   default: from the file extension, else javascript
  --timeout-ms N                            wall-clock limit (default 5000)
  --memory-mb N                             memory limit in MiB (default 64)
  --json                                    print the whole result as JSON
Exit code: 0 success, 1 the code failed (syntax, runtime, limit, forbidden), 2 usage error.`;

const EXTENSION_LANGUAGES: Record<string, Language> = {
  ".js": "javascript",
  ".mjs": "javascript",
  ".cjs": "javascript",
  ".ts": "typescript",
  ".mts": "typescript",
  ".py": "python",
};

function positiveNumber(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === "" || !Number.isFinite(value) || value <= 0) {
    throw new UsageError(`${flag} needs a number greater than 0, got "${text}"`);
  }
  return value;
}

async function readSource(file: string | undefined): Promise<string> {
  if (file === undefined || file === "-") {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  }
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read "${file}"${code === "ENOENT" ? ": no such file" : `: ${(error as Error).message}`}`);
  }
}

function languageOf(flag: string | undefined, file: string | undefined): Language {
  if (flag !== undefined) {
    if (!(LANGUAGES as readonly string[]).includes(flag)) {
      throw new UsageError(`unknown --language "${flag}"; use one of ${LANGUAGES.join(", ")}`);
    }
    return flag as Language;
  }
  const dot = file?.lastIndexOf(".") ?? -1;
  return (dot >= 0 && file ? EXTENSION_LANGUAGES[file.slice(dot)] : undefined) ?? "javascript";
}

function printHuman(result: ExecutionResult): void {
  process.stdout.write(result.stdout);
  process.stderr.write(result.stderr);
  if (result.status !== "success") {
    const e = result.error;
    const where = e?.line !== undefined ? ` (line ${e.line}${e.column !== undefined ? `:${e.column}` : ""})` : "";
    process.stderr.write(`[${result.status}] ${e ? `${e.name}: ${e.message}` : ""}${where}\n`);
    if (result.outputTruncated) process.stderr.write("[output truncated]\n");
  }
}

/** The `exec` subcommand. */
export const execCommand: Command = {
  summary: "run a JavaScript/TypeScript/Python file in the sandbox",
  async run(argv: string[]): Promise<number> {
    const { values, positionals } = parseCommandArgs("exec", {
      args: argv,
      allowPositionals: true,
      options: {
        language: { type: "string" },
        "timeout-ms": { type: "string" },
        "memory-mb": { type: "string" },
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    });
    if (values.help) {
      process.stdout.write(HELP + "\n");
      return 0;
    }
    if (positionals.length > 1) throw new UsageError(`exec takes one FILE (or "-"), got ${positionals.length}`);
    const file = positionals[0];
    const language = languageOf(values.language, file);
    const timeoutMs = positiveNumber("--timeout-ms", values["timeout-ms"]);
    const memoryMb = positiveNumber("--memory-mb", values["memory-mb"]);
    const code = await readSource(file);

    const { runCode, disposeDefaultSandbox } = await import("../sandbox/index.js");
    let result: ExecutionResult;
    try {
      result = await runCode(code, {
        language,
        timeoutMs,
        memoryLimitBytes: memoryMb === undefined ? undefined : Math.round(memoryMb * 1024 * 1024),
      });
    } finally {
      await disposeDefaultSandbox();
    }
    if (values.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    else printHuman(result);
    return result.status === "success" ? 0 : 1;
  },
};

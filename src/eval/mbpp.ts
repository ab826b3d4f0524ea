/**
 * MBPP (sanitized) as evaluation tasks: its JSON file (an array of `{task_id, prompt, code,
 * test_imports, test_list}`), a check of the file against the known copy's sha256, the test
 * split (task ids 11 to 510), and a sampler with a recorded seed.
 */
import { createHash } from "node:crypto";
import { InvalidOptionError } from "../errors.js";
import { InvalidTaskFileError } from "./errors.js";
import type { EvalTask } from "./eval-task.js";

/**
 * sha256 of the compact `sanitized-mbpp.json` (427 problems) as the repository
 * `mrigankpawagi/PropertyEval` holds it at commit 679140c.
 */
export const MBPP_SANITIZED_SHA256 = "ca95deaa9a01ef0a6f439f88bcf0dd3db3563d22f22aad6cae04ebb9a8d8c8e9";

/** MBPP's test split: task ids 11 to 510 (Austin et al. 2021). */
export const MBPP_TEST_SPLIT = { first: 11, last: 510 } as const;

/** What was read from an MBPP file. */
export interface MbppFile {
  tasks: EvalTask[];
  /** sha256 of the file's text, hex. */
  sha256: string;
  /** True when it is the known sanitized file ({@link MBPP_SANITIZED_SHA256}). */
  known: boolean;
}

/**
 * Whether a file's text looks like MBPP: a JSON array whose first row has `task_id` (a number),
 * `prompt` and `test_list`.
 *
 * @example
 * ```ts
 * looksLikeMbpp('[{"task_id": 11, "prompt": "...", "test_list": []}]'); // true
 * ```
 */
export function looksLikeMbpp(text: string): boolean {
  if (!text.trimStart().startsWith("[")) return false;
  try {
    const rows = JSON.parse(text) as unknown;
    const first = Array.isArray(rows) ? (rows[0] as Record<string, unknown> | undefined) : undefined;
    return typeof first?.task_id === "number" && typeof first.prompt === "string" && Array.isArray(first.test_list);
  } catch {
    return false;
  }
}

/**
 * Parses MBPP's JSON (the sanitized or the full set: `prompt` or `text`). Each problem becomes a
 * Python task with id `mbpp/<task_id>`; its `test_list` asserts are its `testCases`, run after
 * `test_imports`; `tests` holds them all. Only the test split unless `split` is `"all"`.
 *
 * @throws InvalidTaskFileError naming the problem's index for a row that is not a problem.
 * @example
 * ```ts
 * const { tasks, known } = parseMbppFile(text, { file: "sanitized-mbpp.json" });
 * ```
 */
export function parseMbppFile(text: string, options: { file?: string; split?: "test" | "all" } = {}): MbppFile {
  const file = options.file ?? "<input>";
  let rows: unknown;
  try {
    rows = JSON.parse(text);
  } catch (error) {
    throw new InvalidTaskFileError(file, 1, `not JSON (${(error as Error).message})`);
  }
  if (!Array.isArray(rows)) throw new InvalidTaskFileError(file, 1, "expected a JSON array of MBPP problems");
  const tasks: EvalTask[] = [];
  rows.forEach((row: unknown, index) => {
    const r = row as Record<string, unknown> | null;
    const prompt = typeof r?.prompt === "string" ? r.prompt : typeof r?.text === "string" ? r.text : undefined;
    if (r === null || typeof r.task_id !== "number" || prompt === undefined || !Array.isArray(r.test_list) || !r.test_list.every((t) => typeof t === "string")) {
      throw new InvalidTaskFileError(file, index + 1, `problem ${index} is not an MBPP row {task_id, prompt, test_imports, test_list}`);
    }
    const id = r.task_id;
    if (options.split !== "all" && (id < MBPP_TEST_SPLIT.first || id > MBPP_TEST_SPLIT.last)) return;
    const imports = Array.isArray(r.test_imports) ? r.test_imports.filter((t): t is string => typeof t === "string") : [];
    const cases = r.test_list as string[];
    const setup = imports.join("\n");
    tasks.push({
      id: `mbpp/${id}`,
      language: "python",
      task: prompt.trim(),
      tests: [setup, ...cases].filter((t) => t !== "").join("\n") + "\n",
      testCases: cases,
      ...(setup === "" ? {} : { testSetup: setup }),
      ...(/^\s*def\s+(\w+)/m.exec(String(r.code ?? "")) ? { entryPoint: /^\s*def\s+(\w+)/m.exec(String(r.code))![1]! } : {}),
    });
  });
  const sha256 = createHash("sha256").update(text).digest("hex");
  return { tasks, sha256, known: sha256 === MBPP_SANITIZED_SHA256 };
}

/**
 * `count` tasks drawn without replacement with a seeded generator (mulberry32 over a
 * Fisher-Yates shuffle), so the same seed gives the same tasks; in their file's order.
 *
 * @example
 * ```ts
 * sampleTasks(tasks, 50, 20261203).map((t) => t.id);
 * ```
 */
export function sampleTasks<T>(tasks: readonly T[], count: number, seed: number): T[] {
  if (!Number.isInteger(seed) || seed < 0 || seed > 2 ** 32 - 1) throw new InvalidOptionError("seed", seed, "a whole number from 0 to 4294967295");
  const random = mulberry32(seed);
  const order = tasks.map((_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order
    .slice(0, Math.min(count, order.length))
    .sort((a, b) => a - b)
    .map((i) => tasks[i]!);
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

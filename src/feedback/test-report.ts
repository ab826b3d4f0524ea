/**
 * The tests of a run in words a model can act on: how many passed out of how many, and for each
 * failing test (up to a bound) its line, its source, and what happened — the values a comparison
 * saw ("`sum_div(8)` returned `15`; the test expects `7`"), or the exception with its line in
 * the program. Made from `TestsOutcome.cases` (values judged outside the program's interpreter);
 * bounded by the one truncation rule.
 */
import type { ExecutionError, TestCase, TestsOutcome } from "../sandbox/types.js";
import { NEXT_STEP } from "./next-step.js";
import { quoteLine } from "./quote.js";
import { truncate } from "./truncate.js";

/** Failing tests described at most (the count covers all). */
export const MAX_REPORTED_FAILURES = 5;
/** Characters of one shown value. */
export const MAX_SHOWN_VALUE_CHARS = 120;
/** Characters of the whole report. */
export const MAX_TEST_REPORT_CHARS = 1800;

/** What the report needs besides the outcome. */
export interface TestReportInput {
  /** The program, to quote the line an exception was raised at. */
  code?: string;
  maxFailures?: number;
  maxValueChars?: number;
  maxChars?: number;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/**
 * The headline: "1 of 3 tests passed." (or "All 3 tests passed.").
 *
 * @example
 * testCountLine({ status: "failed", stdout: "", stderr: "", total: 3, passed: 1 }); // "1 of 3 tests passed."
 */
export function testCountLine(outcome: TestsOutcome): string | undefined {
  if (outcome.total === undefined || outcome.passed === undefined) return undefined;
  if (outcome.total === 0) return "The tests hold no test.";
  if (outcome.passed === outcome.total && outcome.status === "passed") return `All ${plural(outcome.total, "test")} passed.`;
  return `${outcome.passed} of ${plural(outcome.total, "test")} passed.`;
}

/** The innermost frame of the program in an error's stack: its line (Python `<code>`, JavaScript `code.js`/`main`). */
function programLine(error: ExecutionError): number | undefined {
  const stack = error.stack ?? "";
  let line: number | undefined;
  for (const m of stack.matchAll(/File "<code>", line (\d+)|\((?:code|main|program)[^:()]*:(\d+)(?::\d+)?\)|at (?:code|main|program)[^:\s]*:(\d+)/g)) {
    line = Number(m[1] ?? m[2] ?? m[3]);
  }
  return line;
}

function shown(value: string | undefined, maxChars: number): string {
  return `\`${truncate(value ?? "", maxChars)}\``;
}

/** One failing case in a sentence (or two). */
function describeCase(c: TestCase, input: Required<Pick<TestReportInput, "maxValueChars">> & TestReportInput): string {
  const head = `line ${c.line}: \`${truncate(c.source.replace(/\s*\n\s*/g, " "), 160)}\``;
  const v = input.maxValueChars;
  if (c.status === "error" || (c.error && c.actual === undefined)) {
    const error = c.error ?? { name: "Error", message: "the test did not finish" };
    const message = truncate(`${error.name}${error.message ? `: ${error.message.split("\n")[0]}` : ""}`, 240);
    const at = programLine(error);
    const quoted = at !== undefined && input.code !== undefined ? quoteLine(input.code, at) : undefined;
    const where = at === undefined ? "" : ` at line ${at} of the program${quoted === undefined ? "" : ` (\`${quoted}\`)`}`;
    const inTests = error.line !== undefined && error.line !== c.line && at === undefined ? ` at line ${error.line} of the tests` : "";
    const what = c.status === "failed" ? `failed: ${message}${inTests}` : `raised ${message}${where}${inTests}`;
    return `${head}${c.role === "setup" ? " (a setup statement)" : ""} ${what}.`;
  }
  if (c.actual === undefined) return `${head} failed.`;
  const expr = `\`${truncate(c.expression ?? "", 100)}\``;
  const verb = /\)\s*$/.test(c.expression ?? "") ? "returned" : "is";
  const actual = shown(c.actual, v);
  const expected = shown(c.expected, v);
  let sentence: string;
  switch (c.operator) {
    case "truthy":
      sentence = `${expr} ${verb} ${actual}; the test expects a ${/^assert\s+not\b|\.(?:toBeFalsy|isFalse)\b/.test(c.source) ? "false" : "true"} value`;
      break;
    case "!=":
    case "notEqual":
    case "notStrictEqual":
    case "notDeepEqual":
    case "notDeepStrictEqual":
      sentence = `${expr} ${verb} ${actual}; the test expects a value other than ${expected}`;
      break;
    case "<":
    case "<=":
    case ">":
    case ">=":
    case "in":
    case "not in":
      sentence = `${expr} ${verb} ${actual}; the test expects it to be ${c.operator} ${expected}`;
      break;
    case "is not":
      sentence = `${expr} ${verb} ${actual}; the test expects it not to be ${expected}`;
      break;
    case "isclose":
      sentence = `${expr} ${verb} ${actual}; the test expects a value close to ${expected}`;
      break;
    default:
      sentence = `${expr} ${verb} ${actual}; the test expects ${expected}`;
  }
  if (/^assert\s+not\b/.test(c.source) && c.operator !== "truthy") sentence = `${expr} ${verb} ${actual}, compared with ${expected}; the test expects the comparison (${c.operator}) to be false`;
  return `${head}: ${sentence}.${c.note ? ` (${c.note}.)` : ""}`;
}

/**
 * The tests' report, or `undefined` when the outcome has no per-test cases (the tests did not run
 * one by one): "1 of 3 tests passed." then one line per failing test, bounded.
 *
 * @example
 * renderTestReport(result.tests!, { code });
 * // "1 of 3 tests passed. Failing:\n- line 1: `assert sum_div(8)==7`: `sum_div(8)` returned `15`; the test expects `7`.\n..."
 */
export function renderTestReport(outcome: TestsOutcome, input: TestReportInput = {}): string | undefined {
  const count = testCountLine(outcome);
  if (count === undefined || outcome.cases === undefined) return undefined;
  const maxFailures = input.maxFailures ?? MAX_REPORTED_FAILURES;
  const options = { ...input, maxValueChars: input.maxValueChars ?? MAX_SHOWN_VALUE_CHARS };
  const failing = outcome.cases.filter((c) => c.status !== "passed");
  const lines = failing.slice(0, maxFailures).map((c) => `- ${describeCase(c, options)}`);
  const notListed = failing.length - lines.length;
  if (notListed > 0) lines.push(`- ... and ${plural(notListed, "more failing test")}.`);
  const text = lines.length === 0 ? count : `${count} Failing:\n${lines.join("\n")}`;
  return truncate(text, input.maxChars ?? MAX_TEST_REPORT_CHARS);
}

/**
 * The repair prompt's description of failed tests: the report, the tests' output if any, and
 * what to try; `undefined` when the outcome has no per-test cases (explain.ts words it then).
 *
 * @example
 * explainTestReport(result.tests!, { code }); // "1 of 3 tests passed. Failing:\n- ...\nFix the code so the test passes; ..."
 */
export function explainTestReport(outcome: TestsOutcome, input: TestReportInput = {}): string | undefined {
  const report = renderTestReport(outcome, input);
  if (report === undefined) return undefined;
  const printed = outcome.stdout.trim();
  const output = printed === "" ? "" : `\nThe tests printed:\n${truncate(printed, 200)}`;
  return `${report}${output}\n${NEXT_STEP.test_failed}`;
}

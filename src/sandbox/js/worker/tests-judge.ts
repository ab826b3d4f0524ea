/**
 * The worker's verdict on a JavaScript run's split tests (tests-split.ts): each step's record
 * (values read by the worker, a thrown error, "ran") judged here, outside QuickJS: the count of
 * tests comes from the split, a comparison from the values (test-values.ts), never from the
 * helper the test names or from anything the program defined.
 *
 * Runs in the worker thread.
 */
import { MAX_TEST_CASES, type ExecutionError, type TestCase, type TestsOutcome } from "../../types.js";
import type { JsTestStep } from "../prepare/tests-split.js";
import type { TestRecord } from "./guest-context.js";
import { judgeJsComparison, jsValueIsCut, jsValueOpaqueType, showJsValue } from "./test-values.js";

const MAX_SOURCE_CHARS = 300;
const cap = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 3)}...` : s);

/**
 * Cases, counts, status and first failure of split tests. `ended` is the error that ended the
 * tests' evaluation early (a setup statement threw, a limit), if any: steps after it did not run.
 *
 * @example
 * judgeJsTests(steps, guest.takeTestRecords(), undefined).passed;
 */
export function judgeJsTests(
  steps: readonly JsTestStep[],
  records: ReadonlyMap<number, TestRecord>,
  ended: ExecutionError | undefined,
): Pick<TestsOutcome, "status" | "error" | "total" | "passed" | "cases"> {
  const cases: TestCase[] = [];
  let total = 0;
  let passed = 0;
  let first: TestCase | undefined;
  let endedShown = false;
  steps.forEach((step, i) => {
    const record = records.get(i);
    if (step.role === "test") total++;
    const c: TestCase = { line: step.line, source: cap(step.source, MAX_SOURCE_CHARS), status: "passed", role: step.role, decidedBy: step.op ? "outside" : "program" };
    if (step.role === "setup") {
      // Setup is not recorded: it failed when the evaluation ended with an error on its lines.
      const lastLine = step.line + (step.source.match(/\n/g) ?? []).length;
      if (ended === undefined || endedShown || ended.line === undefined || ended.line < step.line || ended.line > lastLine) return;
      c.status = "error";
      c.error = ended;
      endedShown = true;
    } else if (record?.error) {
      c.status = step.op ? "error" : record.error.name === "AssertionError" || /^Error$/.test(record.error.name) ? "failed" : "error";
      c.error = record.error.line === undefined ? { ...record.error, line: step.line } : record.error;
      if (step.op && record.values.length > 0) c.actual = showJsValue(record.values[0]!);
    } else if (step.op) {
      const need = step.right === undefined ? 1 : 2;
      if (!record?.done || record.values.length !== need) {
        c.status = "error";
        c.error = ended && !endedShown ? ended : { name: "Error", message: "the tests ended before this test finished", line: step.line };
        endedShown ||= ended !== undefined;
      } else {
        c.expression = cap(step.left ?? "", MAX_SOURCE_CHARS);
        c.operator = step.op === "json" ? "eq" : step.op;
        c.actual = showJsValue(record.values[0]!);
        if (need === 2) c.expected = showJsValue(record.values[1]!);
        let ok = judgeJsComparison(step.op, record.values, record.same === true);
        if (ok === undefined) {
          const opaque = record.values.map(jsValueOpaqueType).find((t) => t !== undefined);
          c.note = record.values.some(jsValueIsCut)
            ? "a value was too large or too deep to compare outside the program; it counts as failed"
            : opaque !== undefined
              ? `a ${opaque} keeps its contents in internal slots that are not read outside the program, so it cannot be compared there; it counts as failed: compare plain data instead ([...map], [...set], date.getTime(), String(regexp), error.message)`
              : "these values cannot be compared outside the program; it counts as failed";
          ok = false;
        } else if (step.negate) ok = !ok;
        if (step.negate) c.operator = `not ${c.operator}`;
        c.status = ok ? "passed" : "failed";
      }
    } else if (!record?.ran) {
      c.status = "error";
      c.error = ended && !endedShown ? ended : { name: "Error", message: "the tests ended before this test finished", line: step.line };
      endedShown ||= ended !== undefined;
    }
    if (step.role === "test" && c.status === "passed") passed++;
    if (c.status !== "passed") first ??= c;
    if (cases.length < MAX_TEST_CASES) cases.push(c);
  });
  const out: Pick<TestsOutcome, "status" | "error" | "total" | "passed" | "cases"> = { status: first || (ended && !endedShown) ? "failed" : "passed", total, passed, cases };
  if (first) out.error = first.error ?? { name: "AssertionError", message: `failed: ${first.source.trim()}`, line: first.line };
  else if (ended) out.error = ended;
  return out;
}

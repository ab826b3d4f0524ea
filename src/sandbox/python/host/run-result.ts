/**
 * The host's last word on a Python run: host-call count, the tests' outcome and the files,
 * each checked on receipt (they come from a process that ran guest code).
 */
import type { ExecutionResult, TestsOutcome } from "../../types.js";
import type { RunExtras, RunnerMessage } from "../shared/protocol.js";
import { isRelativePath, MAX_HOST_ARGS_CHARS } from "../shared/bounds.js";
import type { PythonRunExtras } from "./run-extras.js";
import { clockReadings } from "../../run-inputs.js";
import { MAX_TEST_VALUES_TOTAL_CHARS } from "../shared/bounds.js";
import { MAX_TEST_STEPS } from "../shared/tests-split.js";
import { judgePythonTests } from "./tests-judge.js";

type ResultMessage = Extract<RunnerMessage, { type: "result" }>;

/** Longest tests error message or reason kept. */
const MAX_TESTS_TEXT_CHARS = 4000;

/**
 * Bytes a run's reply lines may carry beyond output and result: the returned files (base64)
 * and host calls (their arguments, JSON-escaped once more).
 */
export function extrasLineBytes(extras: PythonRunExtras): number {
  const files = extras.files !== undefined ? Math.ceil((extras.maxTotalFileBytes * 4) / 3) + 64 * 1024 : 0;
  const calls = Object.keys(extras.hostFunctions).length > 0 ? 2 * MAX_HOST_ARGS_CHARS + 64 * 1024 : 0;
  // Each test's encoded values (escaped once more) and the steps' errors.
  const tests = extras.tests !== undefined ? 3 * MAX_TEST_VALUES_TOTAL_CHARS + MAX_TEST_STEPS * 12_000 : 0;
  return files + calls + tests;
}

/** The part of a run request that carries the extras across to the runner. */
export function requestExtras(extras: PythonRunExtras, isRun: boolean): RunExtras {
  const out: RunExtras = {
    hostFunctionNames: Object.keys(extras.hostFunctions),
    maxFileBytes: extras.maxFileBytes,
    maxTotalFileBytes: extras.maxTotalFileBytes,
  };
  if (isRun && extras.tests !== undefined) out.tests = extras.tests;
  if (extras.filesAtRoot) out.filesAtRoot = true;
  if (extras.inputs !== undefined) out.inputs = extras.inputs;
  if (extras.files !== undefined) {
    out.files = Object.fromEntries(Object.entries(extras.files).map(([path, bytes]) => [path, Buffer.from(bytes).toString("base64")]));
  }
  return out;
}

/**
 * Adds `hostCalls`, `tests` and `files` to a run's result. `reply` is absent when the process
 * died or was killed (then the tests did not finish and the files are lost).
 */
export function finishResult<T extends ExecutionResult>(result: T, reply: ResultMessage | undefined, extras: PythonRunExtras, isRun: boolean, hostCalls: number): T {
  result.hostCalls = hostCalls;
  if (isRun && extras.tests !== undefined) result.tests = testsOutcome(result, reply, extras.tests);
  if (extras.inputs !== undefined && extras.inputs.clockReads === undefined) {
    const readings = clockReadings(reply?.clockReads);
    if (readings) result.clockReads = readings;
  }
  if (extras.files !== undefined && reply) {
    const files = decodeFiles(reply, extras);
    if ("files" in files) result.files = files.files;
    else if (result.status === "success" || result.status === "runtime_error") {
      result.status = "output_limit";
      result.error = { name: "OutputLimitError", message: `the files were dropped: ${files.error}. Write less (or smaller) files.` };
    } else if (result.error) {
      result.error = { ...result.error, message: `${result.error.message} (the files were dropped: ${files.error})` };
    }
  }
  return result;
}

/** The returned files, checked again here: paths, per-file and total caps. */
function decodeFiles(reply: ResultMessage, extras: PythonRunExtras): { files: Record<string, Uint8Array> } | { error: string } {
  if (typeof reply.filesError === "string") return { error: reply.filesError.slice(0, 500) };
  const sent: unknown = reply.files;
  if (sent === null || typeof sent !== "object" || Array.isArray(sent)) return { error: "the interpreter sent back no files" };
  const files: Record<string, Uint8Array> = {};
  let total = 0;
  for (const [path, base64] of Object.entries(sent as Record<string, unknown>)) {
    if (!isRelativePath(path) || typeof base64 !== "string") return { error: "the interpreter sent back a malformed file entry" };
    // Base64 of n bytes is 4 * ceil(n / 3) characters: refuse before decoding.
    if ((base64.length / 4) * 3 > extras.maxFileBytes + 2) return { error: `file ${path.slice(0, 200)} is over the ${extras.maxFileBytes}-byte maxFileBytes limit` };
    const bytes = new Uint8Array(Buffer.from(base64, "base64"));
    if (bytes.length > extras.maxFileBytes) return { error: `file ${path.slice(0, 200)} is ${bytes.length} bytes, over the ${extras.maxFileBytes}-byte maxFileBytes limit` };
    total += bytes.length;
    if (total > extras.maxTotalFileBytes) return { error: `the files add up to more than the ${extras.maxTotalFileBytes}-byte maxTotalFileBytes limit` };
    files[path] = bytes;
  }
  return { files };
}

function testsOutcome(result: ExecutionResult, reply: ResultMessage | undefined, tests: string): TestsOutcome {
  const reported = reply?.outcome.tests;
  const stdout = typeof reply?.testsStdout === "string" ? reply.testsStdout : "";
  const stderr = typeof reply?.testsStderr === "string" ? reply.testsStderr : "";
  if (!reported || !["passed", "failed", "not_run"].includes(reported.status)) {
    return {
      status: "not_run",
      stdout,
      stderr,
      reason: `the interpreter process stopped (${result.status}) before the tests finished; their outcome is unknown`,
    };
  }
  const out: TestsOutcome = { status: reported.status, stdout, stderr };
  if (reported.error && typeof reported.error.name === "string" && typeof reported.error.message === "string") {
    out.error = { name: reported.error.name.slice(0, 200), message: reported.error.message.slice(0, MAX_TESTS_TEXT_CHARS) };
    if (Number.isSafeInteger(reported.error.line)) out.error.line = reported.error.line;
    if (typeof reported.error.stack === "string") out.error.stack = reported.error.stack.slice(0, MAX_TESTS_TEXT_CHARS);
  }
  if (typeof reported.reason === "string") out.reason = reported.reason.slice(0, MAX_TESTS_TEXT_CHARS);
  if (reported.status !== "not_run" && Array.isArray(reported.steps)) {
    // The tests ran one by one: the verdict is the host's, from the values (tests-judge.ts).
    const judged = judgePythonTests(tests, reported.steps, result.status === "success" ? undefined : out.error);
    out.status = judged.status;
    if (judged.error) out.error = judged.error;
    else delete out.error;
    out.total = judged.total;
    out.passed = judged.passed;
    out.cases = judged.cases;
  }
  return out;
}

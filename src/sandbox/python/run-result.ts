/**
 * The host's last word on a Python run: host-call count, the tests' outcome and the files,
 * each checked on receipt (they come from a process that ran guest code).
 */
import type { ExecutionResult, TestsOutcome } from "../types.js";
import type { RunExtras, RunnerMessage } from "./deno/protocol.js";
import type { PythonRunExtras } from "./run-extras.js";

type ResultMessage = Extract<RunnerMessage, { type: "result" }>;

/** Longest tests error message or reason kept. */
const MAX_TESTS_TEXT_CHARS = 4000;

/** The part of a run request that carries the extras across to the runner. */
export function requestExtras(extras: PythonRunExtras, isRun: boolean): RunExtras {
  const out: RunExtras = {
    hostFunctionNames: Object.keys(extras.hostFunctions),
    maxFileBytes: extras.maxFileBytes,
    maxTotalFileBytes: extras.maxTotalFileBytes,
  };
  if (isRun && extras.tests !== undefined) out.tests = extras.tests;
  if (extras.files !== undefined) {
    out.files = Object.fromEntries(Object.entries(extras.files).map(([path, bytes]) => [path, Buffer.from(bytes).toString("base64")]));
  }
  return out;
}

/**
 * Adds `hostCalls`, `tests` and `files` to a run's result. `reply` is absent when the process
 * died or was killed (then the tests did not finish and the files are lost).
 */
export function finishResult(result: ExecutionResult, reply: ResultMessage | undefined, extras: PythonRunExtras, isRun: boolean, hostCalls: number): ExecutionResult {
  result.hostCalls = hostCalls;
  if (isRun && extras.tests !== undefined) result.tests = testsOutcome(result, reply);
  return result;
}

function testsOutcome(result: ExecutionResult, reply: ResultMessage | undefined): TestsOutcome {
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
  return out;
}

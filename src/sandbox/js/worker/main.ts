/**
 * Entry point of a QuickJS worker thread. Loads the WASM module once, then serves runs from
 * the host one at a time: in a pool worker, a context put back from its pristine image after
 * every run (fresh-image.ts; or a fresh runtime per run), or one kept runtime when the worker
 * hosts a session. Guest code runs synchronously here, so the host's event loop
 * stays free and the host can kill this thread when a run overruns.
 */
import { parentPort, workerData } from "node:worker_threads";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { QuickJSWASMModule } from "quickjs-emscripten-core";
import { prepareJavaScript } from "../prepare/prepare.js";
import { prepareOnce } from "./prepared-sources.js";
import { exposeTopLevelNames, instrumentTests, markThrows, unshiftTestsColumns, wrapTests } from "../prepare/tests-scope.js";
import { splitJsTests } from "../prepare/tests-split.js";
import { judgeJsTests } from "./tests-judge.js";
import { GuestContext, SettleMode, type GuestHost } from "./guest-context.js";
import type { HostToWorker, WorkerOutcome, WorkerToHost } from "../shared/protocol.js";
import { OutputMirror } from "../shared/output-mirror.js";
import { installRunClock } from "./run-clock.js";
import { restoreSnapshot, takeSnapshot } from "./session-snapshot.js";
import { PristineMemory } from "./pristine-memory.js";
import { FreshImage } from "./fresh-image.js";
import { EngineMemory } from "./engine-memory.js";
import { memoryLimitReached } from "./error-description.js";

const port = parentPort;
if (!port) throw new Error("worker.js must run in a worker thread");
// Before QuickJS loads: its clock import reads this realm's Date.now (see run-clock.ts).
installRunClock();

function post(message: WorkerToHost): void {
  // A run's output goes with its end: none of it stays in the mirror for the host to read later.
  if (message.type === "done") host.mirror?.clear();
  port!.postMessage(message);
}

const data = workerData as {
  outputMirror?: SharedArrayBuffer;
  isolation?: "context" | "module";
  warm?: "javascript" | "typescript";
  freshRuns?: "image" | "context";
} | null;
const mirrorBuffer = data?.outputMirror;
/**
 * "module": every pool run starts from the worker's memory as it was before any run: after each
 * run the whole WebAssembly memory is put back byte for byte (see pristine-memory.ts).
 */
const restoresMemory = data?.isolation === "module";
/**
 * "image" (what the pool asks for by default, with isolation "context"): every run is served by
 * one context made once and put back in place from its pristine image after each run
 * (fresh-image.ts). Otherwise a new runtime + context per run, disposed after it (a session's
 * worker, and the A/B bench's old path).
 */
const servesFromImage = !restoresMemory && data?.freshRuns === "image";

const host: GuestHost = {
  mirror: mirrorBuffer ? new OutputMirror(mirrorBuffer) : undefined,
  output: (runId, stdout, stderr) => post({ type: "output", runId, stdout, stderr }),
  call: (runId, callId, name, argsJson) => post({ type: "call", runId, callId, name, argsJson }),
};

// Only the sync release build is ever loaded in this thread (loading two QuickJS variants in one process crashed when measured).
/**
 * The one owner of this thread's QuickJS module and its memory (engine-memory.ts): replaced
 * between runs only, when no runtime of it is alive. Set by `start()` before the first message.
 */
let engine!: EngineMemory;
/** The module of `engine`, as the contexts take it. */
let quickjs!: QuickJSWASMModule;
/** The memory before any run, when this pool worker restores it after each run (isolation "module"). */
let pristine: PristineMemory | undefined;

/**
 * Runs a few tiny programs before reporting ready, so the first real run does not pay for
 * compiling the parser, the TypeScript stripper and the engine's hot paths (most of a worker's
 * start: `npm run bench -- js`, row "engine worker start, new Worker -> ready").
 */
async function warmUp(language: "javascript" | "typescript" | undefined): Promise<void> {
  const silent: GuestHost = { output: () => undefined, call: () => undefined };
  const limits = {
    timeoutMs: 5000,
    memoryLimitBytes: 16 * 1024 * 1024,
    maxOutputBytes: 1024,
    maxHostCallsInFlight: 1,
    maxHostCalls: 1,
    maxResultBytes: 1024,
    maxFileBytes: 1024,
    maxTotalFileBytes: 1024,
  };
  // A JavaScript session never strips types: loading and warming sucrase would only slow its start.
  const first: [string, "javascript" | "typescript"] =
    language === "javascript" ? ["const n = 1;\nconsole.log('warm', { n });\nn", "javascript"] : ["const n: number = 1;\nconsole.log('warm', { n });\nn", "typescript"];
  const programs: [string, "javascript" | "typescript"][] = [
    first,
    ["const v = await Promise.resolve(1);\nexport default { v };", "javascript"],
    ["null.x", "javascript"],
  ];
  for (const [code, language] of programs) {
    const prepared = prepareJavaScript(code, language);
    if (!prepared.ok) continue;
    const guest = new GuestContext(quickjs, limits.memoryLimitBytes, silent);
    const mode = prepared.kind === "script" ? SettleMode.Script : SettleMode.Module;
    await guest.evaluate({ runId: 0, code: prepared.code, kind: prepared.kind, mode, limits, setup: { hostFunctionNames: [] }, startedMs: performance.now() });
    guest.takeOutput();
    guest.dispose();
  }
}

let session: GuestContext | undefined;
/** The session's memory limit, and whether it has run or been given anything yet (a snapshot is restored only into one that has not). */
let sessionLimitBytes = 0;
let sessionUsed = false;
let active: GuestContext | undefined;
/**
 * A fresh runtime + context made right after the previous run was answered, while the host
 * reads that answer, so the next run does not wait for its creation. No code has run in it;
 * it serves exactly one run and is disposed after it, like one made on demand.
 */
let spare: GuestContext | undefined;
/** The pristine image fresh runs start from (servesFromImage), undefined when it was refused. */
let image: FreshImage<GuestContext> | undefined;
/** Why the last image was refused (reported with "ready", see EngineWorker.freshRuns). */
let imageRefusal: string | undefined;

/** Makes the context every fresh run is served by, and takes its image (or falls back, see imageRefusal). */
function takeImage(): void {
  image = undefined;
  if (!servesFromImage) return;
  const taken = FreshImage.take(
    quickjs,
    () => {
      const guest = new GuestContext(quickjs, engine.classLimitBytes, host);
      guest.preloadForRuns();
      return guest;
    },
    [host, engine],
  );
  if (typeof taken === "string") imageRefusal = taken;
  else image = taken;
}

function freshContext(memoryLimitBytes: number): GuestContext {
  if (image && image.refusal(quickjs) === undefined) {
    image.context.setMemoryLimitBytes(memoryLimitBytes);
    return image.context;
  }
  const guest = spare;
  spare = undefined;
  if (!guest) return new GuestContext(quickjs, memoryLimitBytes, host);
  guest.setMemoryLimitBytes(memoryLimitBytes);
  return guest;
}

function onMessage(message: HostToWorker): void {
  switch (message.type) {
    case "run":
      void handleRun(message);
      return;
    case "reply":
      active?.reply(message.runId, message.callId, message);
      return;
    case "session-open":
      // Messages after it wait for it (the module may be replaced first, see fitEngine).
      replacing = openSession(message.memoryLimitBytes);
      return;
    case "session-snapshot":
      void afterReplacing(() => post(snapshotAnswer(message.runId)));
      return;
    case "session-restore":
      void afterReplacing(() => post(restoreAnswer(message.runId, message.snapshot)));
      return;
    case "session-call":
      void afterReplacing(() => handleSessionCall(message));
      return;
    case "session-sequence":
      void handleSequence(message);
      return;
    case "session-names":
      void afterReplacing(() => post({ type: "names", runId: message.runId, names: session?.functionNames() ?? [] }));
      return;
  }
}

/** Runs `then` at once, or once the module being replaced is ready (messages keep their order). */
function afterReplacing(then: () => unknown): unknown {
  return replacing ? replacing.then(then) : then();
}

/** Opens this worker's session: a context kept for its life, in a module sized for its limit. */
async function openSession(memoryLimitBytes: number): Promise<void> {
  await fitEngine(memoryLimitBytes);
  session = new GuestContext(quickjs, memoryLimitBytes, host, true);
  session.loadLibrary();
  sessionLimitBytes = memoryLimitBytes;
  replacing = undefined;
}

/** A snapshot of the session between runs, or why not. */
function snapshotAnswer(runId: number): WorkerToHost {
  if (!session || active) return { type: "snapshot", runId, refused: "no session is idle in this worker" };
  try {
    const taken = takeSnapshot(quickjs, session);
    return typeof taken === "string" ? { type: "snapshot", runId, refused: taken } : { type: "snapshot", runId, snapshot: taken };
  } catch (error) {
    return { type: "snapshot", runId, refused: `the engine could not be read: ${(error as Error).message}` };
  }
}

/** Restores a snapshot into the unused session; a failure after its heap was written ends this thread. */
function restoreAnswer(runId: number, snapshot: Parameters<typeof restoreSnapshot>[2]): WorkerToHost {
  if (!session || active || sessionUsed) return { type: "restored", runId, refused: "the session has already run code" };
  // The snapshot's memory grew under this session's limit; its growth here is the same one.
  if (!engine.allowUpTo(snapshot.memoryBytes)) return { type: "restored", runId, refused: "the snapshot's memory is larger than this session's memory limit allows" };
  let refused: string | undefined;
  try {
    refused = restoreSnapshot(quickjs, session, snapshot, sessionLimitBytes);
  } catch {
    // The heap was written but the state beside it could not be taken: nothing here can be trusted.
    process.exit(1);
  }
  // The session's own cap again, whether the snapshot was taken or refused.
  engine.setLimit(sessionLimitBytes);
  if (refused === undefined) sessionUsed = true;
  return refused === undefined ? { type: "restored", runId } : { type: "restored", runId, refused };
}

/** How a session's run ended, as its sequence needs it (see handleSequence). */
interface RunEnd {
  status: WorkerOutcome["status"];
  /** The file set at the end, when the run was given files and ran. */
  files?: Record<string, Uint8Array>;
}

/**
 * A new WASM instance for a pool worker that restores its memory, when a run grew the old one's
 * (see PristineMemory.grown): its memory is new, and it becomes the pristine one.
 */
async function replaceInstance(classLimitBytes = engine.classLimitBytes): Promise<void> {
  spare = undefined;
  engine = await EngineMemory.create(classLimitBytes);
  quickjs = engine.module;
  engine.markBase();
  if (restoresMemory) pristine = PristineMemory.take(quickjs);
  takeImage();
  // Nothing refers to the old module now: collected, its memory goes back to the host at once
  // (left to V8, a dropped module's grown memory stayed resident; one collection freed it).
  collectGarbage();
}

/**
 * V8's collector, taken once. The flag that exposes it is set only while the context that holds
 * it is made (V8's flags are the process's: no other context gets a `gc` global). Another worker
 * thread starting at the same moment may clear the flag between our setting it and our context
 * being made (a worker then failed to start with "gc is not defined"): we try again a few times,
 * and without a collector a replaced module's memory is left to V8 to return.
 */
const collectGarbage: () => void = (() => {
  for (let attempt = 0; attempt < 5; attempt++) {
    setFlagsFromString("--expose-gc");
    try {
      const gc: unknown = runInNewContext("typeof gc === 'function' ? gc : undefined");
      if (typeof gc === "function") return gc as () => void;
    } finally {
      setFlagsFromString("--no-expose-gc");
    }
  }
  return () => {};
})();

/**
 * Replaces the module before a run (or a session) whose limit it cannot hold within its bound:
 * the limit is larger than its class, or an earlier run with a larger limit grew its memory past
 * this one's cap. No runtime is alive then (the spare has never run code and is dropped with it).
 */
async function fitEngine(memoryLimitBytes: number): Promise<void> {
  if (engine.serves(memoryLimitBytes)) return;
  if (spare && !tryDispose(spare)) process.exit(1);
  await replaceInstance(Math.max(memoryLimitBytes, engine.classLimitBytes));
}

/** Set while a pool worker replaces its instance between runs: the next run waits for it. */
let replacing: Promise<void> | undefined;

async function handleRun(message: Extract<HostToWorker, { type: "run" }>): Promise<RunEnd> {
  if (replacing) await replacing;
  if (!session && !engine.serves(message.memoryLimitBytes)) await fitEngine(message.memoryLimitBytes);
  const startedMs = performance.now();
  host.mirror?.markStarted(message.runId);
  const prepared = prepareOnce(message.code, message.language, message.grantedNames);
  if (!prepared.ok) {
    finish(message.runId, { status: prepared.status, error: prepared.error, durationMs: performance.now() - startedMs }, undefined);
    return { status: prepared.status };
  }
  if (session) sessionUsed = true;
  const guest = session ?? freshContext(message.memoryLimitBytes);
  const withTests = message.tests !== undefined;
  if (message.files) guest.openFiles(message.files, message);
  active = guest;
  const refusalsBefore = engine.refusals;
  let outcome: WorkerOutcome;
  try {
    // With tests, a module's top-level names become globals, so the tests can see them.
    const mode = prepared.kind === "script" ? SettleMode.Script : session || withTests ? SettleMode.SessionModule : SettleMode.Module;
    outcome = await guest.evaluate({
      runId: message.runId,
      code: markProgramThrows(withTests && prepared.kind === "module" ? exposeTopLevelNames(prepared.code) : prepared.code, prepared.kind),
      kind: prepared.kind,
      mode,
      limits: message,
      setup: { globalsJson: message.globalsJson, globalNames: message.globalNames, hostFunctionNames: message.hostFunctionNames },
      startedMs,
    });
    if (message.tests !== undefined) outcome = await runTests(guest, message, message.tests, outcome, startedMs);
  } finally {
    active = undefined;
  }
  // The memory's cap refused a growth: the run reached its limit, decided here where the guest
  // cannot reach, even when its code caught the engine's error or lost it in a promise.
  if (engine.refusals > refusalsBefore && (outcome.status === "success" || outcome.status === "runtime_error")) {
    outcome = { ...outcome, ...memoryLimitReached(message.memoryLimitBytes, outcome.durationMs) };
  }
  const files = guest.closeFiles();
  if (session) {
    finish(message.runId, outcome, guest, files);
    return { status: outcome.status, ...(files ? { files } : {}) };
  }
  // Dispose before reporting: a runtime that refuses to dispose (a leaked handle) may have
  // poisoned the shared WASM module, so this thread must end, and the host must know that
  // before it hands this worker the next run.
  const output = guest.takeOutput();
  // A context served from the image is never disposed: it is put back in place below.
  const fromImage = image !== undefined && guest === image.context;
  const poisoned = fromImage ? guest.faulted : !tryDispose(guest);
  // WebAssembly memory never shrinks: a run that grew it this far gives it back by ending this
  // thread (its isolate, and the memory with it, is freed at once; a dropped module would wait
  // for a garbage collection). The host starts a new worker for the runs to come.
  const retiring = poisoned ? true : engine.grownPastReturn() ? "memory" : undefined;
  post({ type: "done", runId: message.runId, outcome, ...output, ...(retiring ? { retiring } : {}), ...(files ? { files } : {}) });
  if (retiring) process.exit(poisoned ? 1 : 0);
  if (fromImage) {
    await putBackImage(image!);
    return { status: outcome.status };
  }
  // No runtime is alive now: nothing the run left (or wrote anywhere) reaches the next one.
  if (pristine?.grown()) {
    replacing = replaceInstance();
    await replacing;
    replacing = undefined;
  } else {
    pristine?.restore();
  }
  try {
    spare = new GuestContext(quickjs, message.memoryLimitBytes, host);
  } catch {
    // Not fatal here: the next run makes its context on demand and reports what fails then.
    spare = undefined;
  }
  return { status: outcome.status };
}

/**
 * Puts the image's context back for the next run, or, when the run grew the memory, starts a new
 * instance (and image). A restore that fails leaves state no run may see: the thread ends.
 */
async function putBackImage(served: FreshImage<GuestContext>): Promise<void> {
  if (served.grown()) {
    replacing = replaceInstance();
    await replacing;
    replacing = undefined;
    return;
  }
  try {
    served.restore();
  } catch {
    process.exit(1);
  }
}

/** Statuses after which a session's context is not trusted: the host ends the session (see host/session.ts). */
const SESSION_ENDING = new Set<WorkerOutcome["status"]>(["timeout", "memory_limit"]);

/**
 * Runs a session's programs one after another, each answered with its own `done` as if sent
 * alone; a run marked `carryFiles` is given the file set the run before it ended with. Stops
 * after a run that leaves the context untrusted (the host ends the session then). One message
 * for many runs: code mode replays a thread's log this way, without a round trip per cell.
 */
async function handleSequence(message: Extract<HostToWorker, { type: "session-sequence" }>): Promise<void> {
  let carried: Record<string, Uint8Array> | undefined;
  for (const { carryFiles, ...run } of message.runs) {
    const files = run.files ?? (carryFiles ? carried : undefined);
    const end = await handleRun({ ...run, ...(files ? { files } : {}) });
    if (SESSION_ENDING.has(end.status)) return;
    carried = end.files ?? files;
  }
}

/**
 * Runs a program's tests in its context, after it succeeded, as their own evaluation. The
 * program's result stays the run's result; a limit the tests hit becomes the run's status.
 */
async function runTests(
  guest: GuestContext,
  message: Extract<HostToWorker, { type: "run" }>,
  tests: string,
  program: WorkerOutcome,
  startedMs: number,
): Promise<WorkerOutcome> {
  if (program.status !== "success") {
    const why = program.error ? `: ${program.error.name}: ${program.error.message}` : "";
    const reason = `the program ended with status ${program.status}${why.length > 300 ? `${why.slice(0, 300)}...` : why}, so the tests did not run`;
    return { ...program, tests: { status: "not_run", reason } };
  }
  // Everything the program wrote goes out before the marker; what follows is the tests'.
  const programOutput = guest.takeOutput();
  if (programOutput.stdout || programOutput.stderr) post({ type: "output", runId: message.runId, ...programOutput });
  post({ type: "tests-begin", runId: message.runId });
  const prepared = prepareOnce(wrapTests(tests), message.language, message.grantedNames);
  if (!prepared.ok) {
    return { ...program, durationMs: performance.now() - startedMs, tests: { status: "failed", error: unshiftTestsColumns(prepared.error) } };
  }
  // Each test on its own, its values read and compared here (tests-split.ts, tests-judge.ts).
  const split = splitJsTests(prepared.code);
  const evaluated = await guest.evaluate({
    runId: message.runId,
    code: instrumentTests(split.code),
    kind: "script",
    mode: SettleMode.Script,
    limits: message,
    setup: { hostFunctionNames: message.hostFunctionNames },
    startedMs,
    tests: { outputBytesUsed: guest.lastOutputBytes },
  });
  const outcome = evaluated.error ? { ...evaluated, error: unshiftTestsColumns(evaluated.error) } : evaluated;
  const durationMs = performance.now() - startedMs;
  const records = guest.takeTestRecords();
  if (split.steps.length > 0) {
    const judged = judgeJsTests(split.steps, records, outcome.status === "success" ? undefined : (outcome.error ?? { name: "Error", message: `the tests ended with ${outcome.status}` }));
    if (outcome.status === "success" || outcome.status === "runtime_error") return { ...program, durationMs, tests: judged };
    return { ...program, status: outcome.status, ...(outcome.error ? { error: outcome.error } : {}), durationMs, tests: { ...judged, status: "failed" } };
  }
  if (outcome.status === "success") return { ...program, durationMs, tests: { status: "passed" } };
  const failed = { status: "failed" as const, ...(outcome.error ? { error: outcome.error } : {}) };
  // A limit the tests hit is the run's status; a test that threw is only the tests' failure.
  if (outcome.status === "runtime_error") return { ...program, durationMs, tests: failed };
  return { ...program, status: outcome.status, ...(outcome.error ? { error: outcome.error } : {}), durationMs, tests: failed };
}

function tryDispose(guest: GuestContext): boolean {
  try {
    guest.dispose();
    return true;
  } catch {
    return false;
  }
}

async function handleSessionCall(message: Extract<HostToWorker, { type: "session-call" }>): Promise<void> {
  const startedMs = performance.now();
  host.mirror?.markStarted(message.runId);
  const guest = session;
  if (!guest) throw new Error("session-call before session-open");
  sessionUsed = true;
  if (message.files) guest.openFiles(message.files, message);
  active = guest;
  const refusalsBefore = engine.refusals;
  let outcome: WorkerOutcome;
  try {
    outcome = await guest.invoke({
      runId: message.runId,
      name: message.name,
      argsJson: message.argsJson,
      limits: message,
      hostFunctionNames: message.hostFunctionNames,
      startedMs,
    });
  } finally {
    active = undefined;
  }
  finish(message.runId, outcome, guest, guest.closeFiles());
}

function finish(runId: number, outcome: WorkerOutcome, guest: GuestContext | undefined, files?: Record<string, Uint8Array>): void {
  const { stdout, stderr } = guest?.takeOutput() ?? { stdout: "", stderr: "" };
  post({ type: "done", runId, outcome, stdout, stderr, ...(files ? { files } : {}) });
}

/**
 * Loads the engine, warms it up, then takes messages (they wait in the port's queue until
 * then) and says so. An async function rather than top-level await: the worker is bundled as
 * CommonJS (tsdown.config.ts), whose start is faster than an ES module's.
 */
async function start(): Promise<void> {
  engine = await EngineMemory.create();
  quickjs = engine.module;
  await warmUp(data?.warm);
  engine.markBase();
  if (restoresMemory) pristine = PristineMemory.take(quickjs);
  takeImage();
  port!.on("message", onMessage);
  post({ type: "ready", freshRuns: image ? "image" : "context", ...(imageRefusal ? { imageRefused: imageRefusal } : {}) });
}

// A rejection is unhandled, which ends the thread with an error: the host's failed start.
void start();

/**
 * The program with each `throw X` marked (see tests-scope.ts), so that the run knows whether
 * the program itself threw `null`: QuickJS also throws a bare `null` when it runs out of memory
 * (see describeThrown). Source without `throw` is left alone and costs nothing.
 */
function markProgramThrows(code: string, kind: "script" | "module"): string {
  return /\bthrow\b/.test(code) ? markThrows(code, kind) : code;
}

/**
 * Bench section "graph": the code-generation graph's own overhead per attempt, i.e. the wall
 * time of a run minus the time spent inside the model and inside the sandbox, with an instant
 * scripted model. Baseline in the same run: the same model and sandbox calls in a plain loop.
 */
import { HumanMessage, SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import { createCodeGenGraph } from "../src/graph/index.js";
import { createSandbox } from "../src/sandbox/index.js";
import type { CheckResult, ExecutionResult, RunOptions, Sandbox } from "../src/sandbox/types.js";
import { ms, percentiles, type BenchRow, type BenchSection } from "./table.js";

/** Goal of the issue: graph overhead per attempt. */
const GOAL_MS_PER_ATTEMPT = 5;
const RUNS = 150;
const WARMUP_RUNS = 15;

const TASK = "Write a function add(a, b) that returns the sum of two numbers.";
const TESTS = `if (add(2, 3) !== 5) throw new Error("add(2, 3) should be 5, got " + add(2, 3));`;
const RIGHT = "```javascript\nfunction add(a, b) {\n  return a + b;\n}\n```";
const WRONG = "```javascript\nfunction add(a, b) {\n  return a - b;\n}\n```";

/** Time spent inside model calls and sandbox calls, reset per run. */
class Clock {
  modelMs = 0;
  sandboxMs = 0;
  modelCalls = 0;
  reset(): void {
    this.modelMs = 0;
    this.sandboxMs = 0;
    this.modelCalls = 0;
  }
}

/** An instant scripted model whose `invoke` time is counted as model time. */
class TimedFakeModel extends FakeListChatModel {
  constructor(
    responses: string[],
    private readonly clock: Clock,
  ) {
    super({ responses });
  }
  override async invoke(...args: Parameters<FakeListChatModel["invoke"]>): ReturnType<FakeListChatModel["invoke"]> {
    const started = performance.now();
    try {
      return await super.invoke(...args);
    } finally {
      this.clock.modelMs += performance.now() - started;
      this.clock.modelCalls++;
    }
  }
}

/** A whole `Sandbox` (what the graph's `sandbox` option takes) with `run` and `check` replaced; the rest is `base`'s, or refused. */
function withRunAndCheck(parts: Pick<Sandbox, "run" | "check">, base?: Sandbox): Sandbox {
  const none = () => Promise.reject(new Error("the bench's sandbox only runs and checks"));
  return {
    ...parts,
    createSession: base ? (options) => base.createSession(options) : none,
    warm: base ? (languages) => base.warm(languages) : async () => {},
    dispose: base ? () => base.dispose() : async () => {},
    get disposed() {
      return base?.disposed ?? false;
    },
  };
}

function timedRunner(sandbox: ReturnType<typeof createSandbox>, clock: Clock): Sandbox {
  return withRunAndCheck({
    async run(code: string, options?: RunOptions): Promise<ExecutionResult> {
      const started = performance.now();
      try {
        return await sandbox.run(code, options);
      } finally {
        clock.sandboxMs += performance.now() - started;
      }
    },
    async check(code: string, options?: Pick<RunOptions, "language">): Promise<CheckResult> {
      const started = performance.now();
      try {
        return await sandbox.check(code, options);
      } finally {
        clock.sandboxMs += performance.now() - started;
      }
    },
  }, sandbox);
}

/** The same work without the graph: model call, extract, check, run code then tests, refine. */
async function plainLoop(model: TimedFakeModel, runner: Sandbox, maxRetries: number): Promise<number> {
  let messages: BaseMessage[] = [new SystemMessage("You write JavaScript."), new HumanMessage(`Task: ${TASK}\n${TESTS}`)];
  for (let attempt = 1; attempt <= maxRetries + 1; attempt++) {
    const reply = await model.invoke(messages);
    const text = typeof reply.content === "string" ? reply.content : "";
    const code = /```[a-z]*\n([\s\S]*?)```/.exec(text)?.[1] ?? text;
    const check = await runner.check(code, { language: "javascript" });
    let error: string | undefined;
    if (!check.ok) error = check.error.message;
    else {
      const result = await runner.run(code, { language: "javascript", tests: TESTS });
      if (result.status === "success" && result.tests?.status === "passed") return attempt;
      error = result.tests?.error?.message ?? result.error?.message ?? result.tests?.reason ?? result.status;
    }
    messages = [messages[0]!, new HumanMessage(`Task: ${TASK}\nYour code:\n${code}\nfailed: ${error}\nFix it.`)];
  }
  return maxRetries + 1;
}

/**
 * LangGraph's own floor for the same path: no-op nodes with the graph's topology
 * (generate -> validate -> execute, then refine -> validate -> execute per retry, finalize).
 * It shows how much of our overhead is the framework's scheduling and callbacks.
 */
function floorGraph() {
  const State = Annotation.Root({
    failuresLeft: Annotation<number>,
    step: Annotation<number>({ reducer: (_, next) => next, default: () => 0 }),
  });
  return new StateGraph(State)
    .addNode("generate", async () => ({ step: 1 }))
    .addNode("validate", async () => ({ step: 2 }))
    .addNode("execute", async (state) => ({ step: 3, failuresLeft: state.failuresLeft - 1 }))
    .addNode("refine", async () => ({ step: 4 }))
    .addNode("finalize", async () => ({ step: 5 }))
    .addEdge(START, "generate")
    .addConditionalEdges("generate", () => "validate" as const, { validate: "validate" })
    .addConditionalEdges("validate", () => "execute" as const, { execute: "execute" })
    .addConditionalEdges("execute", (state) => (state.failuresLeft >= 0 ? "refine" : "finalize"), { refine: "refine", finalize: "finalize" })
    .addConditionalEdges("refine", () => "validate" as const, { validate: "validate" })
    .addEdge("finalize", END)
    .compile();
}

/**
 * A sandbox that answers at once from the code's text (no engine), for CPU-time measurements:
 * wall time on a loaded machine includes waiting for a core, CPU time does not.
 */
const instantRunner = withRunAndCheck({
  async run(code: string, options?: RunOptions): Promise<ExecutionResult> {
    const language = options?.language ?? "javascript";
    const base = { stdout: "", stderr: "", outputTruncated: false, durationMs: 0, language };
    // Like the engines: the tests run after the program (here: pass or fail by the code's text).
    if (options?.tests === undefined) return { ...base, status: code.includes("a - b") ? "runtime_error" : "success" };
    return code.includes("a - b")
      ? { ...base, status: "success", tests: { status: "failed", stdout: "", stderr: "", error: { name: "Error", message: "add(2, 3) should be 5, got -1", line: 1 } } }
      : { ...base, status: "success", tests: { status: "passed", stdout: "", stderr: "" } };
  },
  async check(_code: string, options?: Pick<RunOptions, "language">): Promise<CheckResult> {
    return { ok: true, language: options?.language ?? "javascript" };
  },
});

/** Process CPU time (user + system) per attempt, in milliseconds, over many runs. */
async function cpuPerAttempt(runOnce: () => Promise<number>): Promise<number> {
  for (let i = 0; i < WARMUP_RUNS; i++) await runOnce();
  let attempts = 0;
  const before = process.cpuUsage();
  for (let i = 0; i < RUNS; i++) attempts += await runOnce();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / attempts;
}

interface Measured {
  perAttemptMs: number[];
  attempts: number;
}

async function measure(runOnce: () => Promise<number>, clock: Clock): Promise<Measured> {
  const perAttemptMs: number[] = [];
  let attempts = 0;
  for (let i = 0; i < WARMUP_RUNS + RUNS; i++) {
    clock.reset();
    const started = performance.now();
    attempts = await runOnce();
    const total = performance.now() - started;
    if (clock.modelCalls !== attempts) throw new Error(`bench graph: expected ${attempts} model calls, counted ${clock.modelCalls}`);
    if (i >= WARMUP_RUNS) perAttemptMs.push((total - clock.modelMs - clock.sandboxMs) / attempts);
  }
  return { perAttemptMs, attempts };
}

const graphSection: BenchSection = async () => {
  const sandbox = createSandbox({ poolSize: 1 });
  await sandbox.warm(["javascript"]);
  const rows: BenchRow[] = [];
  try {
    for (const scenario of [
      { name: "first attempt passes", replies: [RIGHT] },
      { name: "two failures, then repaired", replies: [WRONG, WRONG, RIGHT] },
    ]) {
      const clock = new Clock();
      const runner = timedRunner(sandbox, clock);
      const graphModel = new TimedFakeModel(scenario.replies, clock);
      const graph = createCodeGenGraph({ model: graphModel, maxRetries: 2, sandbox: runner });
      const ours = await measure(async () => {
        const state = await graph.invoke({ task: TASK, language: "javascript", tests: TESTS });
        if (state.status !== "success") throw new Error(`bench graph: run ended ${state.status}: ${state.explanation}`);
        return state.attempts.length;
      }, clock);
      const loopModel = new TimedFakeModel(scenario.replies, clock);
      const baseline = await measure(() => plainLoop(loopModel, runner, 2), clock);
      const floor = floorGraph();
      const failures = scenario.replies.length - 1;
      const floorMeasured = await measure(async () => {
        clock.modelCalls = scenario.replies.length;
        await floor.invoke({ failuresLeft: failures });
        return scenario.replies.length;
      }, clock);
      const o = percentiles(ours.perAttemptMs);
      const f = percentiles(floorMeasured.perAttemptMs);
      const b = percentiles(baseline.perAttemptMs);
      rows.push({
        section: "graph",
        metric: `overhead per attempt (${scenario.name}, ${ours.attempts} attempt(s), median of ${RUNS})`,
        ours: `${ms(o.p50)} p50 / ${ms(o.p95)} p95`,
        baseline: `${ms(b.p50)} p50 / ${ms(b.p95)} p95`,
        baselineName: "model + runCode in a plain loop",
        goal: `<= ${GOAL_MS_PER_ATTEMPT} ms p50`,
        met: o.p50 <= GOAL_MS_PER_ATTEMPT,
      });
      rows.push({
        section: "graph",
        metric: `LangGraph floor per attempt (${scenario.name}: same path, no-op nodes)`,
        ours: `${ms(f.p50)} p50 / ${ms(f.p95)} p95`,
      });

      const cpuClock = new Clock();
      const cpuGraph = createCodeGenGraph({ model: new TimedFakeModel(scenario.replies, cpuClock), maxRetries: 2, sandbox: instantRunner });
      const cpuOurs = await cpuPerAttempt(async () => {
        const state = await cpuGraph.invoke({ task: TASK, language: "javascript", tests: TESTS });
        if (state.status !== "success") throw new Error(`bench graph: run ended ${state.status}: ${state.explanation}`);
        return state.attempts.length;
      });
      const cpuLoopModel = new TimedFakeModel(scenario.replies, cpuClock);
      const cpuBaseline = await cpuPerAttempt(() => plainLoop(cpuLoopModel, instantRunner, 2));
      const cpuFloor = await cpuPerAttempt(async () => {
        await floor.invoke({ failuresLeft: failures });
        return scenario.replies.length;
      });
      rows.push({
        section: "graph",
        metric: `CPU time per attempt, instant model and sandbox (${scenario.name}; LangGraph floor ${ms(cpuFloor)})`,
        ours: `${ms(cpuOurs)} mean`,
        baseline: `${ms(cpuBaseline)} mean`,
        baselineName: "plain loop",
      });
    }
  } finally {
    await sandbox.dispose();
  }
  return rows;
};

export default graphSection;

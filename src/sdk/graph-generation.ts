/**
 * `generateAndInstantiate`'s loop is the graph's: one run of the compiled code-generation graph
 * with the SDK's backend as its model and the SDK's session loader as its runner. The graph
 * extracts, checks, repairs (its repair prompt with the earlier attempts, its repeat detection)
 * and counts the attempts; the SDK keeps what is its own: the prompt its backend receives
 * first (the task, which its pre-processor joins with the descriptors), the globals, and what
 * "running" the program means here (loading it into a session that defines what the task asks).
 * Loaded lazily by `CodeGeneratorSandbox`: this module loads LangChain and the graph.
 */
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { createCodeGenGraph, restoreRunResult, type Attempt, type CodeGenStateType } from "../graph/index.js";
import type { FailedValidation } from "../feedback/explain.js";
import type { CheckResult, ExecutionResult, Language, Sandbox, SandboxSession } from "../sandbox/types.js";
import type { GeneratorEstimates } from "./generator-api.js";
import type { CallLimits } from "./instance.js";

/** How a load ended: a live session, or the run that failed (the session is already released). */
export type LoadOutcome = { ok: true; session: SandboxSession; result: ExecutionResult } | { ok: false; result: ExecutionResult };

/** What one generation needs from `CodeGeneratorSandbox`. */
export interface GraphGenerationRequest {
  task: string;
  language: Language;
  /** Repairs after the first attempt. */
  maxRetries: number;
  limits: CallLimits;
  /** One backend call: the prompt (the task, then the graph's repair prompts) to the reply. */
  generate(prompt: string): Promise<string>;
  /** The backend's running totals, when it keeps them (each call's tokens are their difference). */
  estimates(): GeneratorEstimates | undefined;
  /** Syntax and imports, as the sandbox checks them. */
  check(code: string): Promise<CheckResult>;
  /** TypeScript declarations of the SDK's globals that `code` does not declare itself. */
  typeDeclarations(code: string): string;
  /** Loads `code` into a fresh session and checks it defines what the task asks. */
  load(code: string): Promise<LoadOutcome>;
}

/** The end of a generation: the code and its live session, or the last failure. */
export type GraphGeneration =
  | { ok: true; code: string; session: SandboxSession }
  | { ok: false; phase: "validate" | "instantiate"; code: string; outcome: CheckResult | FailedValidation | ExecutionResult; attempts: number };

/**
 * The SDK's backend as the graph's chat model: the last user message is the prompt; the graph's
 * system prompt is not sent (a backend has its own). Tokens come from the backend's totals.
 * A backend that throws ends the run; its error is kept so the caller gets it unchanged.
 */
class BackendChatModel extends BaseChatModel {
  failure: { error: unknown } | undefined;

  constructor(private readonly request: Pick<GraphGenerationRequest, "generate" | "estimates">) {
    super({});
  }

  _llmType(): string {
    return "codegen-sandbox-sdk-backend";
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const prompt = messages.filter((m) => m.getType() === "human").at(-1)?.content;
    const before = this.request.estimates();
    let reply: string;
    try {
      reply = await this.request.generate(typeof prompt === "string" ? prompt : "");
    } catch (error) {
      this.failure = { error };
      throw error;
    }
    const after = this.request.estimates();
    const input = (after?.inputTokens ?? 0) - (before?.inputTokens ?? 0);
    const output = (after?.outputTokens ?? 0) - (before?.outputTokens ?? 0);
    const message = new AIMessage({ content: reply, usage_metadata: { input_tokens: input, output_tokens: output, total_tokens: input + output } });
    return { generations: [{ text: reply, message }] };
  }
}

/** The graph's runner for the SDK: checks with the sandbox, "runs" by loading into a session it keeps. */
class SessionLoader implements Sandbox {
  private readonly loaded = new Map<string, SandboxSession>();
  private released = false;

  constructor(private readonly request: Pick<GraphGenerationRequest, "check" | "typeDeclarations" | "load">) {}

  check(code: string): Promise<CheckResult> {
    return this.request.check(code);
  }

  typeDeclarations(code: string): string {
    return this.request.typeDeclarations(code);
  }

  async run(code: string): Promise<ExecutionResult> {
    const outcome = await this.request.load(code);
    if (!outcome.ok) return outcome.result;
    await this.loaded.get(code)?.dispose();
    this.loaded.set(code, outcome.session);
    return outcome.result;
  }

  /** The graph of one generation opens no session of its own (it has no code tools). */
  createSession(): Promise<SandboxSession> {
    return Promise.reject(new Error("the SDK's generation graph loads programs with run(); it opens no other session"));
  }

  async warm(): Promise<void> {}

  async dispose(): Promise<void> {
    this.released = true;
    await this.keep(undefined);
  }

  get disposed(): boolean {
    return this.released;
  }

  /** The session `code` was loaded into; every other one is released. */
  async keep(code: string | undefined): Promise<SandboxSession | undefined> {
    const kept = code === undefined ? undefined : this.loaded.get(code);
    const others = [...this.loaded.values()].filter((session) => session !== kept);
    this.loaded.clear();
    await Promise.all(others.map((session) => session.dispose()));
    return kept;
  }
}

/** What an attempt was judged on: the check of a `validate` attempt, the load of an `execute` one. */
interface AttemptOutcome {
  phase: "validate" | "instantiate";
  code: string;
  outcome: CheckResult | FailedValidation | ExecutionResult;
}

/**
 * Runs the graph once for `request`: first prompt the task itself, repairs with the graph's
 * repair prompt (one candidate per round: a backend takes no temperature, so drawing it again
 * on the same prompt gives the same program), up to `maxRetries` rounds.
 */
export async function generateWithGraph(request: GraphGenerationRequest): Promise<GraphGeneration> {
  const model = new BackendChatModel(request);
  const runner = new SessionLoader(request);
  const graph = createCodeGenGraph({
    model,
    sandbox: runner,
    maxRetries: request.maxRetries,
    defaultLanguage: request.language,
    repair: { samples: 1, prompt: "repair" },
    // The backend's pre-processor joins the task with the descriptors: it gets the task as written.
    prompts: { task: "{{task}}{{details}}" },
    // Backends retry their own calls (their `modelRetry`).
    modelRetry: { maxRetries: 0 },
    ...request.limits,
  });
  const outcomes = new Map<number, AttemptOutcome>();
  let final: CodeGenStateType | undefined;
  try {
    const stream = await graph.stream({ task: request.task, language: request.language }, { streamMode: "values" });
    for await (const state of stream) {
      final = state as CodeGenStateType;
      const last = final.attempts.at(-1);
      if (last !== undefined && !outcomes.has(last.number)) {
        const outcome = attemptOutcome(last, final);
        if (outcome !== undefined) outcomes.set(last.number, outcome);
      }
    }
  } catch (error) {
    await runner.keep(undefined);
    throw error;
  }
  if (model.failure !== undefined) {
    await runner.keep(undefined);
    throw model.failure.error;
  }
  if (final?.status === "success" && final.code !== undefined) {
    const session = await runner.keep(final.code);
    if (session !== undefined) return { ok: true, code: final.code, session };
  }
  await runner.keep(undefined);
  const attempts = final?.attempts ?? [];
  const last = attempts.at(-1);
  // A repeat never ran: report the attempt it repeated.
  const reported = last?.status === "repeat" ? outcomes.get(last.repeatOf!) : last === undefined ? undefined : outcomes.get(last.number);
  if (reported === undefined) throw new Error(`the code-generation graph ended without an attempt to report (status ${final?.status ?? "none"})`);
  return { ok: false, ...reported, attempts: attempts.length };
}

/** The outcome behind an attempt, read from the state the step that recorded it left. */
function attemptOutcome(attempt: Attempt, state: CodeGenStateType): AttemptOutcome | undefined {
  if (attempt.phase === "validate" && state.check !== undefined) {
    // A reply without a program has no code: the reply itself is what failed.
    return { phase: "validate", code: attempt.code.trim() === "" ? (state.reply ?? "") : attempt.code, outcome: state.check };
  }
  if (attempt.phase === "execute" && state.result !== undefined) return { phase: "instantiate", code: attempt.code, outcome: restoreRunResult(state.result) };
  return undefined;
}

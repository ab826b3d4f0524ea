/** Runs one corpus case through the graph with a scripted model and reports what the test compares. */
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { createCodeGenGraph } from "../../../src/graph/index.js";
import type { Sandbox } from "../../../src/sandbox/types.js";
import type { ReplyCase } from "./types.js";

/** What a case's run showed, with what it should have shown beside it (`expected`). */
export interface CaseOutcome {
  program: string;
  verdict: string;
  stdout?: string;
  attempts: number;
  status: string;
  expected?: Omit<CaseOutcome, "expected">;
}

/**
 * Runs `reply` through the graph: the scripted model answers the same reply twice, with one
 * repair allowed, so a right first reply ends after one attempt and a wrong one gets a second.
 */
export async function runCorpusCase(reply: ReplyCase, sandbox?: Sandbox): Promise<CaseOutcome> {
  const model = new FakeListChatModel({ responses: [reply.reply, reply.reply] });
  const graph = createCodeGenGraph({ model, maxRetries: 1, timeoutMs: 20_000, ...(sandbox === undefined ? {} : { sandbox }) });
  const state = await graph.invoke({
    task: reply.task,
    language: reply.language,
    ...(reply.tests === undefined ? {} : { tests: reply.tests }),
    ...(reply.expectedOutput === undefined ? {} : { expectedOutput: reply.expectedOutput }),
  });
  const first = state.attempts[0]!;
  const right = reply.verdict === "success";
  const outcome: CaseOutcome = { program: first.code, verdict: first.status, attempts: state.attempts.length, status: state.status ?? "unknown" };
  if (reply.stdout !== undefined) outcome.stdout = first.stdout;
  const expected: Omit<CaseOutcome, "expected"> = { program: reply.program ?? "", verdict: reply.verdict, attempts: right ? 1 : 2, status: right ? "success" : "failed" };
  if (reply.stdout !== undefined) expected.stdout = reply.stdout;
  return { ...outcome, expected };
}

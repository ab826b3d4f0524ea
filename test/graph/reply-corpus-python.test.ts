/**
 * The Python replies of the corpus through the graph with a scripted model, on one warm Python
 * engine: the program, the first attempt's status and output, and one attempt when the first
 * reply is right. (The extractor half of the corpus is in reply-corpus.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox } from "../../src/sandbox/index.js";
import { REPLY_CORPUS } from "./reply-corpus/index.js";
import { runCorpusCase } from "./reply-corpus/run-case.js";

const sandbox = createSandbox();
beforeAll(async () => {
  await sandbox.warm(["python", "javascript"]);
}, 180_000);
afterAll(async () => {
  await sandbox.dispose();
});

describe("the reply corpus through the graph (Python)", { timeout: 60_000 }, () => {
  const cases = REPLY_CORPUS.filter((c) => c.language === "python");
  it.each(cases.map((c) => [c.id, c] as const))("%s", async (_id, reply) => {
    const { expected, ...actual } = await runCorpusCase(reply, sandbox);
    expect(actual).toEqual(expected);
  });
});

/**
 * The reply corpus through the one extractor (every case) and through the graph with a
 * scripted model (JavaScript and TypeScript here; Python in reply-corpus-python.test.ts, which
 * needs the Python engine): the program, the first attempt's status and output, and one
 * attempt when the first reply is right.
 */
import { afterAll, describe, expect, it } from "vitest";
import { extractProgram } from "../../src/graph/extract-code.js";
import { disposeDefaultSandbox } from "../../src/sandbox/index.js";
import { REPLY_CORPUS } from "./reply-corpus/index.js";
import { runCorpusCase } from "./reply-corpus/run-case.js";

afterAll(async () => {
  await disposeDefaultSandbox();
});

describe("the reply corpus", () => {
  it("has at least 80 replies of several families, in all three languages", () => {
    expect(REPLY_CORPUS.length).toBeGreaterThanOrEqual(80);
    expect(new Set(REPLY_CORPUS.map((c) => c.id)).size).toBe(REPLY_CORPUS.length);
    const families = new Set(REPLY_CORPUS.map((c) => c.style.replace(/^recorded: /, "").split(/[-\s]/)[0]));
    expect(families.size).toBeGreaterThanOrEqual(10);
  });

  describe.each(REPLY_CORPUS.map((c) => [c.id, c] as const))("extractProgram: %s", (_id, reply) => {
    it("finds the program the reply means (or none)", () => {
      const found = extractProgram(reply.reply, reply.language, reply.tests === undefined ? {} : { tests: reply.tests });
      expect(found.ok ? found.code : null).toBe(reply.program);
    });
  });
});

describe("the reply corpus through the graph (JavaScript and TypeScript)", { timeout: 60_000 }, () => {
  const cases = REPLY_CORPUS.filter((c) => c.language !== "python");
  it.each(cases.map((c) => [c.id, c] as const))("%s", async (_id, reply) => {
    const { expected, ...actual } = await runCorpusCase(reply);
    expect(actual).toEqual(expected);
  });
});

/**
 * Bench section "replies": the reply corpus (test/graph/reply-corpus) through the graph with a
 * scripted model, one reply per case: how many replies were read right on the first attempt
 * (the program the reply means, the verdict it should get, one attempt when it is right).
 * Baseline in the same run: the rule most code-generation loops use, "the last fenced block
 * tagged with the language", compared on the program alone. Also the extractor's time per reply.
 */
import { createSandbox } from "../src/sandbox/index.js";
import { extractProgram } from "../src/graph/extract-code.js";
import type { Language } from "../src/sandbox/types.js";
import { REPLY_CORPUS } from "../test/graph/reply-corpus/index.js";
import { runCorpusCase } from "../test/graph/reply-corpus/run-case.js";
import { ms, percentiles, type BenchRow, type BenchSection } from "./table.js";

const TAGS: Record<Language, RegExp> = {
  javascript: /^(?:js|javascript|jsx|mjs|node)$/i,
  typescript: /^(?:ts|typescript|tsx|js|javascript)$/i,
  python: /^(?:py|python|python3)$/i,
};

/** The naive rule: the body of the last fenced block tagged with the language, else the whole reply. */
function lastTaggedBlock(reply: string, language: Language): string | null {
  const blocks = [...reply.replace(/\r\n?/g, "\n").matchAll(/^```(\w*)[^\n]*\n([\s\S]*?)^```/gm)].filter((m) => TAGS[language].test(m[1]!));
  const last = blocks.at(-1);
  return last === undefined ? null : last[2]!.replace(/^\n+/, "").trimEnd();
}

const section: BenchSection = async (): Promise<BenchRow[]> => {
  const sandbox = createSandbox();
  try {
    await sandbox.warm(["javascript", "python"]);
    let right = 0;
    const wrong: string[] = [];
    for (const reply of REPLY_CORPUS) {
      const { expected, ...actual } = await runCorpusCase(reply, sandbox);
      if (JSON.stringify(actual) === JSON.stringify(expected)) right++;
      else wrong.push(reply.id);
    }
    if (wrong.length > 0) process.stderr.write(`bench replies: read wrong: ${wrong.join(", ")}\n`);
    const naive = REPLY_CORPUS.filter((reply) => lastTaggedBlock(reply.reply, reply.language) === reply.program).length;
    const extractorRight = REPLY_CORPUS.filter((reply) => {
      const found = extractProgram(reply.reply, reply.language, reply.tests === undefined ? {} : { tests: reply.tests });
      return (found.ok ? found.code : null) === reply.program;
    }).length;
    const samples: number[] = [];
    for (let round = 0; round < 5; round++) {
      for (const reply of REPLY_CORPUS) {
        const started = performance.now();
        extractProgram(reply.reply, reply.language);
        samples.push(performance.now() - started);
      }
    }
    const { p50, p95 } = percentiles(samples);
    const total = REPLY_CORPUS.length;
    return [
      {
        section: "replies",
        metric: `corpus replies read right on the first attempt (program, verdict, attempts), of ${total}`,
        ours: `${right}/${total}`,
        baseline: `${naive}/${total} programs right`,
        baselineName: "last fenced block of the language",
        goal: "all",
        met: right === total,
      },
      { section: "replies", metric: `programs extractProgram reads right, of ${total}`, ours: `${extractorRight}/${total}`, goal: "all", met: extractorRight === total },
      { section: "replies", metric: "extractProgram time per corpus reply", ours: `${ms(p50)} p50 / ${ms(p95)} p95` },
    ];
  } finally {
    await sandbox.dispose();
  }
};

export default section;

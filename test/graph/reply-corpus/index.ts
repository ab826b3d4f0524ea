/**
 * The reply corpus: model replies in the shapes chat models really produce, each with the
 * program the graph should run and the verdict its first attempt should get. Run through
 * `extractProgram` (test/graph/reply-corpus.test.ts), through `createCodeGenGraph` with a
 * scripted model (the same file for JavaScript and TypeScript, reply-corpus-python.test.ts for
 * Python) and by `npm run bench -- replies`.
 */
import { JAVASCRIPT_CASES, TYPESCRIPT_CASES } from "./javascript.js";
import { PYTHON_CASES } from "./python.js";
import type { ReplyCase } from "./types.js";

export type { ReplyCase } from "./types.js";

/** Every case, Python first. */
export const REPLY_CORPUS: readonly ReplyCase[] = [...PYTHON_CASES, ...JAVASCRIPT_CASES, ...TYPESCRIPT_CASES];

/** The shape of one case of the reply corpus, and helpers to write replies the way models do. */
import type { AttemptStatus } from "../../../src/graph/state.js";
import type { Language } from "../../../src/sandbox/types.js";

/** One model reply, the program it means and the verdict its first attempt should get. */
export interface ReplyCase {
  id: string;
  /**
   * Whose answers the reply is shaped like (family and size). "recorded: ..." marks a reply a
   * real model wrote (see recorded.ts); the others are written in the shapes those models use.
   */
  style: string;
  language: Language;
  task: string;
  tests?: string;
  expectedOutput?: string;
  reply: string;
  /** What `extractProgram` must return as the program; null when the reply holds none. */
  program: string | null;
  /** Status of the first attempt when the graph runs the reply. */
  verdict: AttemptStatus;
  /** The first attempt's stdout (checked when given). */
  stdout?: string;
}

/** A fenced block: "```tag\ncode\n```". */
export function block(tag: string, code: string): string {
  return "```" + tag + "\n" + code + "\n```";
}

/** Lines joined into one text. */
export function lines(...parts: string[]): string {
  return parts.join("\n");
}

/** Blocks joined as the extractor joins them: in order, one blank line apart. */
export function joined(...codes: string[]): string {
  return codes.join("\n\n");
}

/**
 * Pulls the program out of a model's reply: fenced blocks (one or several, with prose
 * around), or an unfenced reply with explanatory sentences before or after the code.
 */
import type { Language } from "../sandbox/types.js";

const LANGUAGE_TAGS: Record<Language, readonly string[]> = {
  javascript: ["js", "javascript", "jsx", "mjs", "cjs", "node", "es6"],
  typescript: ["ts", "typescript", "tsx", "mts"],
  python: ["py", "python", "python3", "py3"],
};

interface Block {
  tag: string;
  body: string;
}

/**
 * Returns the code of `reply` for `language`.
 * - Fenced blocks tagged with the language (`js`, `ts`, `py`, ...) are joined in order;
 *   for TypeScript, JavaScript blocks count too.
 * - Else untagged blocks are joined; else the first block of any tag is used.
 * - An unclosed fence (a cut-off reply) runs to the end of the reply.
 * - Without fences, leading and trailing prose lines are dropped.
 * - `<think>...</think>` sections of reasoning models are ignored.
 *
 * @example
 * ```ts
 * extractCode("Here you go:\n```js\nconsole.log(1)\n```\nIt prints 1.", "javascript");
 * // "console.log(1)"
 * ```
 */
export function extractCode(reply: string, language: Language): string {
  // Reasoning models (e.g. served by Ollama or vLLM) put their thinking, sometimes with draft code, before the answer.
  const text = reply.replace(/\r\n?/g, "\n").replace(/<think(?:ing)?>[\s\S]*?(?:<\/think(?:ing)?>|$)/g, "");
  const blocks = fencedBlocks(text);
  if (blocks.length === 0) return stripProse(text).trim();
  const wanted = new Set(LANGUAGE_TAGS[language]);
  if (language === "typescript") for (const tag of LANGUAGE_TAGS.javascript) wanted.add(tag);
  const matching = blocks.filter((b) => wanted.has(b.tag));
  const chosen = matching.length > 0 ? matching : blocks.filter((b) => b.tag === "");
  const picked = chosen.length > 0 ? chosen : [blocks[0]];
  return picked
    .map((b) => b.body.replace(/^\n+|\s+$/g, ""))
    .join("\n\n")
    .trim();
}

function fencedBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  const lines = text.split("\n");
  let i = 0;
  while (i < lines.length) {
    const open = /^\s*(`{3,}|~{3,})\s*([\w+#.-]*)[^\n]*$/.exec(lines[i]);
    if (!open) {
      i++;
      continue;
    }
    const fence = open[1];
    const tag = open[2].toLowerCase();
    const body: string[] = [];
    const close = new RegExp(`^\\s*${fence[0] === "`" ? "`" : "~"}{${fence.length},}\\s*$`);
    i++;
    while (i < lines.length && !close.test(lines[i])) {
      body.push(lines[i]);
      i++;
    }
    i++; // skip the closing fence (or run past the end of an unclosed one)
    blocks.push({ tag, body: body.join("\n") });
  }
  return blocks;
}

/** A line of English rather than code: starts with a capital, has several words and no code punctuation. */
function isProse(line: string): boolean {
  const trimmed = line.trim();
  if (trimmed === "") return true;
  if (/[;{}=()[\]<>`]|^(\/\/|#|\/\*|\*)/.test(trimmed)) return false;
  if (!/^[A-Z]/.test(trimmed)) return false;
  return trimmed.split(/\s+/).length >= 3;
}

function stripProse(text: string): string {
  const lines = text.split("\n");
  let start = 0;
  let end = lines.length;
  while (start < end && isProse(lines[start])) start++;
  while (end > start && isProse(lines[end - 1])) end--;
  return lines.slice(start, end).join("\n");
}

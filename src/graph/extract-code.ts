/**
 * One program per reply: picks the program a model's reply means, for the graph, the SDK and
 * the tools alike.
 *
 * The rule, in order:
 * 1. `<think>...</think>` sections of reasoning models are ignored.
 * 2. Among complete fenced blocks tagged with the target language (aliases: `js`/`javascript`/
 *    `mjs`/`jsx`/`cjs`/`node`, `ts`/`typescript`/`tsx`/`mts`, `py`/`python`/`python3`/`py3`;
 *    a TypeScript task also takes JavaScript blocks), the last one that parses wins. Blocks are
 *    never joined, so a quoted buggy line and the fixed program do not merge.
 * 3. Else an unterminated block of that language (a reply cut at max tokens) that parses.
 * 4. Else, when the language's blocks exist but none parses, the last of them, so that the
 *    check reports its syntax error to the model (with the line).
 * 5. Else (no block of the language) an untagged block that parses as the target language (the last one).
 * 6. A reply without fences is used when, with leading and trailing prose lines dropped, it
 *    parses. JavaScript/TypeScript that looks like code (a line with `;`, braces, brackets or
 *    `=`) but does not parse is used too, like rule 4, so that the check reports its syntax
 *    error with the line: backends of the SDK are asked for raw code, and a broken raw reply
 *    is better answered with its error than with "no program".
 * 7. Otherwise: no program, with the reason.
 *
 * Blocks of another language (`bash`, `text`, `console`, `json`, ...) are never taken, and
 * example blocks (a `>>>` session, `$`-prompted shell commands) are never run.
 *
 * "Parses" means the sandbox's own syntax check for JavaScript and TypeScript (acorn, after
 * sucrase strips TypeScript types; a forbidden import still counts as parsing, so the check
 * can report it). Python has no parser on the host, so a cheap heuristic stands in: the block
 * is not an example, does not start indented, has no top-level `return`, and (for an untagged
 * block or an unfenced reply) has a line that looks like Python and none that looks like
 * JavaScript.
 */
import { prepareJavaScript } from "../sandbox/js/prepare/prepare.js";
import type { Language } from "../sandbox/types.js";
import { InvalidOptionError } from "../errors.js";
import { resolveLanguage } from "../sandbox/options.js";

const LANGUAGE_TAGS: Record<Language, readonly string[]> = {
  javascript: ["js", "javascript", "jsx", "mjs", "cjs", "node", "es6"],
  typescript: ["ts", "typescript", "tsx", "mts", "cts"],
  python: ["py", "python", "python3", "py3"],
};

const DISPLAY: Record<Language, string> = { javascript: "JavaScript", typescript: "TypeScript", python: "Python" };

/** What `extractProgram` found: a program (and how), or why there is none. */
export type ProgramExtraction =
  | {
      ok: true;
      code: string;
      /** Where the code came from. */
      from: "block" | "unterminated block" | "untagged block" | "reply";
      /** False only for rule 4: the language's last block, which does not parse. */
      parses: boolean;
    }
  | { ok: false; reason: string };

interface Block {
  tag: string;
  body: string;
  complete: boolean;
}

/**
 * The program of `reply` for `language`, by the rule in this module's header.
 *
 * @example
 * ```ts
 * extractProgram("Here you go:\n```js\nconsole.log(1)\n```\nIt prints 1.", "javascript");
 * // { ok: true, code: "console.log(1)", from: "block", parses: true }
 * ```
 */
export function extractProgram(reply: string, language: Language): ProgramExtraction {
  if (typeof reply !== "string") throw new InvalidOptionError("reply", reply, "the model's reply text (a string)");
  resolveLanguage(language);
  // Reasoning models (e.g. served by Ollama or vLLM) put their thinking, sometimes with draft code, before the answer.
  const text = String(reply ?? "")
    .replace(/\r\n?/g, "\n")
    .replace(/<think(?:ing)?>[\s\S]*?(?:<\/think(?:ing)?>|$)/g, "");
  const blocks = fencedBlocks(text);
  const name = DISPLAY[language];
  if (blocks.length === 0) {
    const code = stripProse(text).trim();
    if (code === "") return { ok: false, reason: text.trim() === "" ? "the reply is empty" : "the reply is prose only: it has no code block and no code" };
    if (parses(code, language, true)) return { ok: true, code, from: "reply", parses: true };
    if (language !== "python" && code.split("\n").some((line) => /[;{}()[\]=]/.test(line))) return { ok: true, code, from: "reply", parses: false };
    return { ok: false, reason: `the reply has no code block, and its text does not parse as ${name}` };
  }
  const wanted = new Set(LANGUAGE_TAGS[language]);
  if (language === "typescript") for (const tag of LANGUAGE_TAGS.javascript) wanted.add(tag);
  const tagged = blocks.filter((b) => wanted.has(b.tag) && b.body.trim() !== "");
  const pick = (list: Block[], strict: boolean) => list.filter((b) => parses(b.body, language, strict)).at(-1);
  const chosen =
    pick(tagged.filter((b) => b.complete), false) ?? pick(tagged.filter((b) => !b.complete), false);
  if (chosen) return { ok: true, code: tidy(chosen.body), from: chosen.complete ? "block" : "unterminated block", parses: true };
  const broken = tagged.filter((b) => !isExample(b.body)).at(-1);
  if (broken) return { ok: true, code: tidy(broken.body), from: broken.complete ? "block" : "unterminated block", parses: false };
  const untagged = pick(blocks.filter((b) => b.tag === "" && b.body.trim() !== ""), true);
  if (untagged) return { ok: true, code: tidy(untagged.body), from: "untagged block", parses: true };
  if (blocks.some((b) => wanted.has(b.tag))) {
    return {
      ok: false,
      reason: tagged.length === 0 ? `the reply's ${name} code blocks are empty` : `the reply's ${name} blocks are examples (a >>> session or shell commands), not a program`,
    };
  }
  const tags = [...new Set(blocks.map((b) => (b.tag === "" ? "untagged" : b.tag)))].join(", ");
  return { ok: false, reason: `the reply has no ${name} code block (its blocks: ${tags}), and no untagged block parses as ${name}` };
}

/**
 * The code of `reply` for `language` (see `extractProgram`), or `""` when it holds no program.
 *
 * @example
 * ```ts
 * extractCode("```python\nprint(1)\n```", "python"); // "print(1)"
 * ```
 */
export function extractCode(reply: string, language: Language): string {
  const found = extractProgram(reply, language);
  return found.ok ? found.code : "";
}

function tidy(body: string): string {
  return body.replace(/^\n+|\s+$/g, "");
}

function fencedBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  const lines = text.split("\n");
  let i = 0;
  while (i < lines.length) {
    const open = /^\s*(`{3,}|~{3,})\s*\{?\.?([\w+#.-]*)[^\n]*$/.exec(lines[i]!);
    if (!open) {
      i++;
      continue;
    }
    const fence = open[1]!;
    const tag = open[2]!.toLowerCase();
    const body: string[] = [];
    const close = new RegExp(`^\\s*${fence[0] === "`" ? "`" : "~"}{${fence.length},}\\s*$`);
    i++;
    while (i < lines.length && !close.test(lines[i]!)) {
      body.push(lines[i]!);
      i++;
    }
    blocks.push({ tag, body: body.join("\n"), complete: i < lines.length });
    i++; // skip the closing fence (or run past the end of an unclosed one)
  }
  return blocks;
}

/** A `>>>` interpreter session, or shell commands at a `$`/`%` prompt. */
function isExample(body: string): boolean {
  const lines = body.split("\n").filter((line) => line.trim() !== "");
  if (lines.length === 0) return false;
  if (lines.some((line) => /^\s*>>>(\s|$)/.test(line))) return true;
  return /^\s*[$%]\s/.test(lines[0]!);
}

/** Whether `code` parses as `language`; `strict` adds the "looks like Python" test for unmarked code. */
function parses(code: string, language: Language, strict: boolean): boolean {
  if (code.trim() === "" || isExample(code)) return false;
  if (language !== "python") {
    const prepared = prepareJavaScript(code, language);
    return prepared.ok || prepared.status === "forbidden";
  }
  const lines = code.split("\n").filter((line) => line.trim() !== "" && !/^\s*#/.test(line));
  if (lines.length === 0) return false;
  if (/^\s/.test(lines[0]!)) return false;
  if (lines.some((line) => /^(return|yield)\b/.test(line))) return false;
  if (!strict) return true;
  const jsLike = lines.some((line) => /^\s*(function\s|const\s|let\s|var\s|console\.log\b)|;\s*$/.test(line));
  const pyLike = lines.some((line) =>
    /^\s*(def|class|import|from|for|while|if|with|try|async|print\s*\(|@)|^\s*[A-Za-z_][\w.[\], ]*\s*[-+*/%]?=(?!=)/.test(line),
  );
  return pyLike && !jsLike;
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
  while (start < end && isProse(lines[start]!)) start++;
  while (end > start && isProse(lines[end - 1]!)) end--;
  return lines.slice(start, end).join("\n");
}

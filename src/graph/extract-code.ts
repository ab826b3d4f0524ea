/**
 * One program per reply: reads a model's reply the way a person would, for the graph, the SDK
 * and the tools alike. Which blocks make the program is decided from what they are, not only
 * from where they are (the rule, with examples, is in docs/graph.md):
 *
 * 1. `<think>...</think>` sections of reasoning models are ignored.
 * 2. Each fenced block is read: its tag (aliases `js`/`javascript`/`jsx`/`mjs`/`cjs`/`node`,
 *    `ts`/`typescript`/`tsx`/`mts`, `py`/`python`/`python3`/`py3`; a TypeScript task also takes
 *    JavaScript blocks; another tag is another language and never taken), whether it parses,
 *    the names it defines and uses, and what it is:
 *    - an **example**: a `>>>` interpreter session or `$`-prompted shell commands (a doctest
 *      inside a docstring of real code does not make the code an example);
 *    - an **output sample**: only values (`3628800`, `[1, 2]`, `h: 1` lines), or, after prose
 *      that announces output ("Output:", "This prints:", "Expected output:"), a block that
 *      defines, assigns, prints and branches nowhere;
 *    - **code**: anything else. An untagged block is code of the language only when it parses as
 *      that language and looks like it (for Python: it does something; no JavaScript lines).
 * 3. The **program** ends with the last complete code block that parses (a trailing block the
 *    reply never closed replaces it only when it parses and uses names the blocks before it
 *    define: a usage or test block cut at the token limit). Earlier code blocks are joined
 *    before it, in order, when they define names it (or the caller's tests, or the names the
 *    caller will call) uses and does not define itself, and when they only define things
 *    (functions, classes, types, imports) that no later block redefines. So a definition block
 *    and a usage or assertion block run together, while alternatives ("Approach 1", "Approach 2")
 *    and a quoted buggy line followed by the fixed program give the last complete one alone.
 * 4. Else, when code blocks of the language exist but none parses, the last of them, so that the
 *    check reports its syntax error (with the line) to the model.
 * 5. A reply without fences is used when, with prose lines before and after dropped, it parses
 *    and is not only a value; JavaScript/TypeScript that looks like code but does not parse goes
 *    to the check like rule 4 (SDK backends are asked for raw code).
 * 6. Otherwise: no program, with the reason (also for a reply over `MAX_REPLY_CHARS`).
 *
 * JavaScript and TypeScript programs lose their CommonJS boilerplate (`module.exports = ...`
 * lines become a comment, `if (require.main === module)` tests `true`): the sandbox runs one
 * program as the main one and has no modules, so those lines could only fail.
 *
 * "Parses" is the sandbox's own syntax check for JavaScript and TypeScript (acorn after
 * sucrase; an import still parses, so the check can name it as forbidden). Python is read by a
 * light tokenizer on the host (reply/python-source.ts); the sandbox's compile checks the
 * program that is chosen.
 */
import type { Language } from "../sandbox/types.js";
import { fencedBlocks, type ReplyBlock } from "./reply/blocks.js";
import { scanJavaScript, withoutCommonJsBoilerplate } from "./reply/js-source.js";
import { scanPython } from "./reply/python-source.js";
import type { SourceFacts } from "./reply/source-facts.js";
import { InvalidOptionError } from "../errors.js";
import { arrayRule, checkOptions, textRule, type OptionRules } from "../options/index.js";
import { resolveLanguage } from "../sandbox/options.js";

const LANGUAGE_TAGS: Record<Language, readonly string[]> = {
  javascript: ["js", "javascript", "jsx", "mjs", "cjs", "node", "nodejs", "es6"],
  typescript: ["ts", "typescript", "tsx", "mts", "cts"],
  python: ["py", "python", "python3", "py3"],
};

const DISPLAY: Record<Language, string> = { javascript: "JavaScript", typescript: "TypeScript", python: "Python" };

/** Prose that introduces printed output rather than code: "Output:", "This will print:", "### Result". */
const OUTPUT_LEAD = /\b(?:outputs?|results?|prints?|printed|printing|displays?|returns?|produces?|gives|shows?|see|expected)\b[^\n]*[:：]\s*(?:\*\*|__)?\s*$/i;
const OUTPUT_HEADING = /^\s*(?:#{1,6}|\*\*|__)\s*(?:sample\s+|example\s+|expected\s+)?(?:output|result)s?\b/i;
/** Longer replies are not read: no model writes a program this long, and reading costs time linear in it. */
export const MAX_REPLY_CHARS = 512 * 1024;
const SESSION_PROMPT = /^\s*(?:>>>|\$|%|>|PS [^>\n]*>)(?:\s|$)/;

/** What `extractProgram` found: a program (and how), or why there is none. */
export type ProgramExtraction =
  | {
      ok: true;
      code: string;
      /** Where the code came from: one block, several joined in order, or the unfenced reply. */
      from: "block" | "joined blocks" | "unterminated block" | "untagged block" | "reply";
      /** False only for rule 4 (and a raw reply that does not parse): the check will report the syntax error. */
      parses: boolean;
    }
  | { ok: false; reason: string };

/** What the caller knows about how the program will be used. */
export interface ExtractOptions {
  /** Code that runs after the program, in its scope (the graph's tests): the names it uses must come from the program. */
  tests?: string;
  /** Names the caller will call (the SDK's functions): blocks defining them are part of the program. */
  requiredNames?: readonly string[];
}

const EXTRACT_RULES = {
  tests: textRule({ what: "the tests' source code", allowEmpty: true }),
  requiredNames: arrayRule(textRule({ what: "a name" }), { what: "an array of names the program must define" }),
} satisfies OptionRules<ExtractOptions>;

/** One block as the rule sees it. */
interface ReadBlock extends ReplyBlock {
  role: "code" | "example" | "sample" | "empty" | "other language";
  tagged: boolean;
  facts?: SourceFacts;
  /** Code of the language that parses, eligible for the program. */
  usable: boolean;
}

/**
 * The program of `reply` for `language`, by the rule in this module's header.
 *
 * @example
 * ```ts
 * const fence = "```";
 * extractProgram(`Here's the function:\n${fence}python\ndef square(n):\n    return n * n\n${fence}\nExample usage:\n${fence}python\nprint(square(4))\n${fence}`, "python");
 * // { ok: true, code: "def square(n):\n    return n * n\n\nprint(square(4))", from: "joined blocks", parses: true }
 * ```
 */
export function extractProgram(reply: string, language: Language, options: ExtractOptions = {}): ProgramExtraction {
  if (typeof reply !== "string") throw new InvalidOptionError("reply", reply, "the model's reply text (a string)");
  resolveLanguage(language);
  const { tests, requiredNames: required } = checkOptions<ExtractOptions>(options, EXTRACT_RULES, "extractProgram");
  const raw = reply;
  if (raw.length > MAX_REPLY_CHARS) return { ok: false, reason: `the reply is ${raw.length} characters long, more than the ${MAX_REPLY_CHARS} a program is read from` };
  // Reasoning models (e.g. served by Ollama or vLLM) put their thinking, sometimes with draft code, before the answer.
  const text = raw
    .replace(/\r\n?/g, "\n")
    .replace(/<think(?:ing)?>[\s\S]*?(?:<\/think(?:ing)?>|$)/g, "");
  const blocks = fencedBlocks(text);
  if (blocks.length === 0) return fromUnfencedReply(text, language);
  const read = blocks.map((block) => readBlock(block, language));
  const usable = read.filter((b) => b.usable);
  const final = chooseLast(usable);
  if (final !== undefined) {
    const parts = joinWithDefinitions(usable, final, neededNames(tests, required, language));
    const code = finish(parts.map((b) => tidy(b.body)).join("\n\n"), language);
    const from = parts.length > 1 ? "joined blocks" : !final.complete ? "unterminated block" : final.tagged ? "block" : "untagged block";
    return { ok: true, code, from, parses: true };
  }
  const broken = read.filter((b) => b.tagged && b.role === "code").at(-1);
  if (broken) return { ok: true, code: finish(tidy(broken.body), language), from: broken.complete ? "block" : "unterminated block", parses: false };
  return { ok: false, reason: whyNoProgram(read, language) };
}

/**
 * The code of `reply` for `language` (see `extractProgram`), or `""` when it holds no program.
 *
 * @example
 * ```ts
 * extractCode("```python\nprint(1)\n```", "python"); // "print(1)"
 * ```
 */
export function extractCode(reply: string, language: Language, options: ExtractOptions = {}): string {
  const found = extractProgram(reply, language, options);
  return found.ok ? found.code : "";
}

function scan(code: string, language: Language): SourceFacts {
  return language === "python" ? scanPython(code) : scanJavaScript(code, language);
}

function readBlock(block: ReplyBlock, language: Language): ReadBlock {
  const tagged = LANGUAGE_TAGS[language].includes(block.tag) || (language === "typescript" && LANGUAGE_TAGS.javascript.includes(block.tag));
  if (!tagged && block.tag !== "") return { ...block, role: "other language", tagged, usable: false };
  if (block.body.trim() === "") return { ...block, role: "empty", tagged, usable: false };
  if (isSession(block.body)) return { ...block, role: "example", tagged, usable: false };
  const facts = scan(block.body, language);
  if (facts.reason?.includes(">>>")) return { ...block, role: "example", tagged, facts, usable: false };
  if (facts.empty) return { ...block, role: "empty", tagged, facts, usable: false };
  if (isOutputSample(block, facts)) return { ...block, role: "sample", tagged, facts, usable: false };
  const usable = facts.parses && (tagged || looksLikeLanguage(facts, language));
  return { ...block, role: tagged || usable ? "code" : "other language", tagged, facts, usable };
}

/** A `>>>` interpreter session or shell commands at a prompt (the first line decides). */
function isSession(body: string): boolean {
  const first = body.split("\n").find((line) => line.trim() !== "");
  return first !== undefined && SESSION_PROMPT.test(first);
}

function isOutputSample(block: ReplyBlock, facts: SourceFacts): boolean {
  if (facts.literalOnly) return true;
  // The end of the lead line is what introduces the block; bounded, so a huge line costs nothing.
  const lead = block.lead.slice(-300);
  return (OUTPUT_LEAD.test(lead) || OUTPUT_HEADING.test(lead)) && !facts.acts;
}

/** Untagged code counts as the language only when it does something and has no lines of another language. */
function looksLikeLanguage(facts: SourceFacts, language: Language): boolean {
  if (facts.looksLikeOtherLanguage) return false;
  return language !== "python" || facts.acts;
}

/** The block the program ends with: the last complete one, unless a trailing unclosed block continues the ones before it. */
function chooseLast(usable: ReadBlock[]): ReadBlock | undefined {
  const last = usable.filter((b) => b.complete).at(-1);
  const trailing = usable.at(-1);
  if (trailing === undefined || trailing.complete) return last;
  if (last === undefined) return trailing;
  const before = new Set(usable.slice(0, -1).flatMap((b) => [...b.facts!.defines]));
  return [...trailing.facts!.uses].some((name) => before.has(name)) ? trailing : last;
}

/**
 * `final` and the earlier blocks it depends on: a block is taken when it defines a name still
 * needed (nearest first), or when it only defines things no later block redefines (a helper
 * beside the main code). When `final` only defines things, the nearest earlier block that uses
 * them (usage written before the definition) is taken too. Blocks that only define come first,
 * then the others, each in reply order, so a definition always runs before its use.
 */
function joinWithDefinitions(usable: ReadBlock[], final: ReadBlock, required: Set<string>): ReadBlock[] {
  const end = usable.indexOf(final);
  const taken = new Set<ReadBlock>();
  const definedByTaken = new Set<string>();
  const need = new Set(required);
  const take = (block: ReadBlock) => {
    taken.add(block);
    for (const name of block.facts!.defines) {
      definedByTaken.add(name);
      need.delete(name);
    }
    for (const name of block.facts!.uses) if (!definedByTaken.has(name)) need.add(name);
  };
  take(final);
  if (final.facts!.definitionsOnly) {
    const user = usable.slice(0, end).findLast((b) => !b.facts!.definitionsOnly && [...final.facts!.defines].some((name) => b.facts!.uses.has(name)));
    if (user !== undefined) take(user);
  }
  // Names some block after index i defines, built from the end so the walk stays linear.
  const definedLater = new Set<string>();
  for (const block of usable.slice(end + 1)) for (const name of block.facts!.defines) definedLater.add(name);
  for (let i = end; i >= 0; i--) {
    const block = usable[i]!;
    const facts = block.facts!;
    if (i < end && !taken.has(block)) {
      const defines = [...facts.defines];
      const needed = defines.some((name) => need.has(name));
      const redefinedLater = defines.some((name) => definedLater.has(name));
      if (needed || (facts.definitionsOnly && !redefinedLater)) take(block);
    }
    for (const name of facts.defines) definedLater.add(name);
  }
  const inOrder = usable.filter((b) => taken.has(b));
  return [...inOrder.filter((b) => b.facts!.definitionsOnly), ...inOrder.filter((b) => !b.facts!.definitionsOnly)];
}

/** Names the program must define: the caller's required names and what its tests use. */
function neededNames(tests: string | undefined, required: readonly string[] | undefined, language: Language): Set<string> {
  const names = new Set(required ?? []);
  if (tests !== undefined && tests.trim() !== "") for (const name of scan(tests, language).uses) names.add(name);
  return names;
}

function finish(code: string, language: Language): string {
  return language === "python" ? code : withoutCommonJsBoilerplate(code, language).trimEnd();
}

function fromUnfencedReply(text: string, language: Language): ProgramExtraction {
  const name = DISPLAY[language];
  const code = stripProse(text).trim();
  if (code === "") return { ok: false, reason: text.trim() === "" ? "the reply is empty" : "the reply is prose only: it has no code block and no code" };
  const facts = scan(code, language);
  if (facts.parses && facts.literalOnly) return { ok: false, reason: `the reply is only a value (${quote(code)}), not a program that computes it` };
  if (facts.parses && !isSession(code) && looksLikeLanguage(facts, language)) return { ok: true, code: finish(code, language), from: "reply", parses: true };
  if (language !== "python" && !isSession(code) && code.split("\n").some((line) => /[;{}()[\]=]/.test(line))) return { ok: true, code, from: "reply", parses: false };
  return { ok: false, reason: `the reply has no code block, and its text does not parse as ${name}` };
}

function whyNoProgram(read: ReadBlock[], language: Language): string {
  const name = DISPLAY[language];
  const mine = read.filter((b) => b.tagged || b.role === "sample" || b.role === "example");
  if (read.some((b) => b.tagged) || mine.length > 0) {
    const kinds: string[] = [];
    if (mine.some((b) => b.role === "example")) kinds.push("an interpreter session or shell commands (>>> or $ prompts)");
    const sample = mine.find((b) => b.role === "sample");
    if (sample) kinds.push(`printed output (${quote(sample.body)})`);
    if (kinds.length === 0) return `the reply's ${name} code blocks are empty`;
    return `the reply's ${name} blocks are not a program: they hold ${kinds.join(" and ")}`;
  }
  const tags = [...new Set(read.map((b) => (b.tag === "" ? "untagged" : b.tag)))].join(", ");
  return `the reply has no ${name} code block (its blocks: ${tags}), and no untagged block parses as ${name}`;
}

function quote(text: string): string {
  const line = text.trim().split("\n")[0]!;
  return line.length > 40 ? `${line.slice(0, 40)}...` : line;
}

function tidy(body: string): string {
  // trimEnd, not /\s+$/: that regex is quadratic on a long run of blank lines followed by code.
  return body.replace(/^\n+/, "").trimEnd();
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

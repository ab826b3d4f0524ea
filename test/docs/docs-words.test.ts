/**
 * README.md and docs/*.md are written for a user of the package, not as a log of how it was
 * built: no work-round words ("this stop", "last round"), no issue numbers of this project and no
 * commit hashes of it. History, if any, belongs in CHANGELOG.md (not checked here).
 *
 * The rule, precisely (case-insensitive unless said):
 * - "stop" as a unit of work: "this/last/previous/earlier stop", "stop N", "the/this/last stop's".
 *   A run that stops, a signal that stops it, "a stop asked for" are untouched.
 * - "round" as a unit of work: "this/last/previous/earlier/first…sixth round" (not "round trip"),
 *   "round N", "end/start of the round", "the round's end/start/changes", "rounds ago".
 *   A repair round ("the first repair round", "each round", "the next round tells the model"),
 *   a round trip and "3 rounds of 1,000" (a bench's repetitions) are untouched.
 * - An issue number: "issue N", "issues N-M", "issue #N", or a bare "#N". A reference into another
 *   project's tracker, written with its name ("bellard/quickjs#478", "quickjs-ng#1296",
 *   "deno#35232"), is data about that project and is allowed, and so is a list that continues
 *   one ("quickjs-ng#1318, #1352", "bellard/quickjs#478 and #492").
 * - A commit hash: a lower-case hex word of 7 to 40 characters with at least one digit and one
 *   letter, not part of a longer word (a 64-character sha256 digest is never one). Allowed: a
 *   commit of an upstream project named just before it ("bellard 0989d4c", "quickjs-ng ad874ef",
 *   "bellard/quickjs 2025-09-13, commit f1139494", and a list after one: "bellard 46bd985,
 *   efda450"), and the few documented values in `DOCUMENTED_HEX`, each with its reason.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));

/** Hex words that are documented data, not this project's commits; each says what it is. */
const DOCUMENTED_HEX = new Map<string, string>([
  ["679140c", "docs/eval.md: the commit of mrigankpawagi/PropertyEval whose sanitized-mbpp.json is the known MBPP file"],
  ["ca95deaa", "docs/eval.md: the first characters of the MBPP file's sha256, shortened as ca95deaa…c8e9"],
  ["f1139494", "docs/security.md: the bellard/quickjs commit the vendored QuickJS is built from"],
]);

interface Finding {
  line: number;
  word: string;
  rule: string;
}

const WORD_RULES: Array<{ rule: string; pattern: RegExp }> = [
  { rule: "a work stop", pattern: /\b(?:this|last|previous|earlier)\s+stop\b(?!s|'s)/gi },
  { rule: "a work stop", pattern: /\bstops?\s+\d+\b/gi },
  { rule: "a work stop", pattern: /\b(?:the|this|last)\s+stop's\b/gi },
  { rule: "a work round", pattern: /\b(?:this|last|previous|earlier|first|second|third|fourth|fifth|sixth)\s+round\b(?![\s-]+trip)/gi },
  { rule: "a work round", pattern: /\brounds?\s+\d+\b/gi },
  { rule: "a work round", pattern: /\b(?:end|start)\s+of\s+the\s+round\b/gi },
  { rule: "a work round", pattern: /\bthe\s+round's\s+(?:end|start|changes)\b/gi },
  { rule: "a work round", pattern: /\brounds?\s+ago\b/gi },
  { rule: "an issue number", pattern: /\bissues?\s+#?\d+/gi },
];

/** A bare #N (not after a name, not a Markdown anchor `](#...`). */
const BARE_ISSUE = /(?<![\w/.-]|\]\()#\d+\b/g;
/** A list that continues another project's references: "quickjs-ng#1318, #1352", "#478 and #492". */
const TRACKER_LIST_BEFORE = /[\w-]+#\d+(?:(?:,\s*|\s+and\s+)#\d+)*(?:,\s*|\s+and\s+)$/;

const HEX_WORD = /(?<![\w-])[0-9a-f]{7,40}(?![\w-])/g;
/** What may stand right before an upstream commit: the project's name, a date, "commit". */
const UPSTREAM_BEFORE = /\b(?:bellard|quickjs-ng|quickjs|deno|pyodide)(?:\/[\w-]+)?(?:\s+\d{4}-\d{2}-\d{2},?)?(?:\s+commit)?\s+$/i;

/** The words of one Markdown text that read as this project's history, with their lines. */
export function historyWords(text: string): Finding[] {
  const findings: Finding[] = [];
  text.split("\n").forEach((content, index) => {
    const line = index + 1;
    for (const { rule, pattern } of WORD_RULES) {
      for (const match of content.matchAll(pattern)) findings.push({ line, word: match[0], rule });
    }
    for (const match of content.matchAll(BARE_ISSUE)) {
      if (!TRACKER_LIST_BEFORE.test(content.slice(0, match.index))) findings.push({ line, word: match[0], rule: "an issue number" });
    }
    let upstreamListEnd = -1;
    for (const match of content.matchAll(HEX_WORD)) {
      const word = match[0];
      const start = match.index;
      if (!/\d/.test(word) || !/[a-f]/.test(word)) continue;
      const before = content.slice(0, start);
      const continuesList = upstreamListEnd >= 0 && /^,\s*$/.test(content.slice(upstreamListEnd, start));
      if (UPSTREAM_BEFORE.test(before) || continuesList) {
        upstreamListEnd = start + word.length;
        continue;
      }
      upstreamListEnd = -1;
      if (DOCUMENTED_HEX.has(word)) continue;
      findings.push({ line, word, rule: "a commit hash" });
    }
  });
  return findings.sort((a, b) => a.line - b.line);
}

const pages = ["README.md", ...readdirSync(join(root, "docs")).filter((name) => name.endsWith(".md")).map((name) => `docs/${name}`)];

describe("README.md and docs/ are written for users, not as a log", () => {
  it("reads every page", () => {
    expect(pages).toContain("README.md");
    expect(pages.length).toBeGreaterThanOrEqual(10);
  });

  it("finds each kind of history word, with its line, and leaves the user's words alone", () => {
    const text = [
      "Measured at the end of this stop (stop 3), against last stop's numbers.", // 1
      "The third round (issue 16.5: restore time) and issues 8-12; see #21.", // 2
      "Before this round's changes (`fea95de`), main at cfab3e5, round 3 table.", // 3
      "A run that stops, a signal that stops it; a stop asked for meanwhile ends the run.", // 4
      "Each repair round is one attempt; the first repair round; a round trip; 3 rounds of 1,000.", // 5
      "bellard/quickjs#478, quickjs-ng#1296, #1302 and #7, deno#35232; bellard 0989d4c; bellard 46bd985, efda450.", // 6
      "sha256 `ca95deaa9a01ef0a6f439f88bcf0dd3db3563d22f22aad6cae04ebb9a8d8c8e9`, 3628800, [x](#usage).", // 7
      "bellard/quickjs 2025-09-13, commit f1139494; quickjs-ng ad874ef (2026-08-18).", // 8
      "our commit 1a2b3c4d here, then deadbeef and 0x7fffffff; fixes #12 (quickjs-ng#3).", // 9
    ].join("\n");
    expect(historyWords(text).map((f) => `${f.line}:${f.word}`)).toEqual([
      "1:this stop",
      "1:stop 3",
      "1:last stop's",
      "2:third round",
      "2:issue 16",
      "2:issues 8",
      "2:#21",
      "3:this round",
      "3:round 3",
      "3:fea95de",
      "3:cfab3e5",
      "9:#12",
      "9:1a2b3c4d",
    ]);
  });

  it("has none in README.md or docs/*.md", () => {
    const found = pages.flatMap((page) =>
      historyWords(readFileSync(join(root, page), "utf8")).map((f) => `${page}:${f.line}: "${f.word}" (${f.rule})`),
    );
    expect(found, `history words in the user docs (move history to CHANGELOG.md, or say it for a user):\n${found.join("\n")}`).toEqual([]);
  });
});

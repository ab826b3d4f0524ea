/**
 * Glob patterns for `glob` and `grep`'s filter, matched without regular expressions: the
 * matchers that compile globs to regular expressions (minimatch, picomatch) backtrack
 * exponentially on crafted patterns (minimatch 10.2.6 ran for minutes on one 70-character
 * pattern), and these run on the host's thread. Here a pattern is brace-expanded (bounded),
 * split into `/` parts, and matched part by part with the classic two-pointer wildcard
 * algorithm, `**` by a memoised walk: time is bounded by (pattern × path) per alternative.
 *
 * Every match draws on a step budget shared by one `glob` or `grep` call, so even the slowest
 * pattern/path combination ends quickly with an error that says to simplify the pattern.
 *
 * Supported: `*` (any characters but `/`), `?` (one character but `/`), `[abc]`, `[a-z]`,
 * `[!x]`/`[^x]`, `{a,b}` alternatives, `**` (any number of directories), `\` escapes. Dot
 * files are matched like any other (deepagents passes `dot: true`). Extended globs
 * (`+(a|b)`) are not supported and match literally.
 */

/** Longest pattern accepted. */
export const MAX_GLOB_PATTERN_CHARS = 1024;
/** Most alternatives one pattern may expand to. */
const MAX_ALTERNATIVES = 256;

/** Steps one `glob` or `grep` call may spend matching (tens of milliseconds). */
export const GLOB_STEP_BUDGET = 20_000_000;

/** Thrown when a call's matching would pass its step budget. */
export class GlobBudgetError extends Error {
  override name = "GlobBudgetError";
  constructor() {
    super("the glob pattern is too costly to match against these paths; use a simpler pattern (fewer * and {..} groups)");
  }
}

/** A compiled pattern: `matches(path)` says whether a `/`-separated path matches. */
export interface GlobMatcher {
  /** @throws GlobBudgetError when the call's step budget runs out. */
  matches(path: string): boolean;
}

/**
 * Compiles a glob pattern, or says why it cannot be used.
 *
 * @example
 * const m = compileGlob("src/**\/*.{ts,tsx}");
 * if ("matches" in m) m.matches("src/a/b.ts"); // true
 */
export function compileGlob(pattern: string): GlobMatcher | { error: string } {
  if (pattern.length > MAX_GLOB_PATTERN_CHARS) return { error: `the glob pattern is longer than ${MAX_GLOB_PATTERN_CHARS} characters` };
  const alternatives = expandBraces(pattern);
  if (alternatives === undefined) return { error: `the glob pattern expands to more than ${MAX_ALTERNATIVES} alternatives` };
  // Empty parts are dropped but a leading one (an absolute pattern); runs of `**` are one `**`.
  const compiled = alternatives.map((alt) => alt.split("/").filter((part, i, all) => (part !== "" || i === 0) && !(part === "**" && all[i - 1] === "**")));
  const budget = { steps: GLOB_STEP_BUDGET };
  return {
    matches(path: string): boolean {
      const parts = path.split("/");
      return compiled.some((pat) => matchParts(pat, parts, budget));
    },
  };
}

/** Expands `{a,b}` groups (nested too); `undefined` past the bound. Unbalanced braces stay literal. */
function expandBraces(pattern: string): string[] | undefined {
  let out = [pattern];
  for (let round = 0; round < 64; round++) {
    let changed = false;
    const next: string[] = [];
    for (const p of out) {
      const group = firstGroup(p);
      if (!group) {
        next.push(p);
        continue;
      }
      changed = true;
      for (const option of group.options) next.push(p.slice(0, group.start) + option + p.slice(group.end + 1));
      if (next.length > MAX_ALTERNATIVES) return undefined;
    }
    out = next;
    if (!changed) return out;
  }
  return undefined;
}

/** The first innermost `{...}` group with a top-level comma, or none. */
function firstGroup(p: string): { start: number; end: number; options: string[] } | undefined {
  const stack: number[] = [];
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === "\\") {
      i++;
      continue;
    }
    if (c === "{") stack.push(i);
    else if (c === "}" && stack.length > 0) {
      const start = stack.pop()!;
      const body = p.slice(start + 1, i);
      const options = splitTopLevel(body);
      if (options.length > 1) return { start, end: i, options };
    }
  }
  return undefined;
}

function splitTopLevel(body: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === "\\") i++;
    else if (c === "{") depth++;
    else if (c === "}") depth--;
    else if (c === "," && depth === 0) {
      out.push(body.slice(from, i));
      from = i + 1;
    }
  }
  out.push(body.slice(from));
  return out;
}

/** Matches pattern parts against path parts; `**` spans any number of parts (memoised). */
function matchParts(pat: string[], parts: string[], budget: { steps: number }): boolean {
  const memo = new Map<number, boolean>();
  const walk = (i: number, j: number): boolean => {
    if (--budget.steps < 0) throw new GlobBudgetError();
    const key = i * (parts.length + 1) + j;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    if (i === pat.length) result = j === parts.length;
    else if (pat[i] === "**") result = walk(i + 1, j) || (j < parts.length && walk(i, j + 1));
    else result = j < parts.length && matchSegment(pat[i]!, parts[j]!, budget) && walk(i + 1, j + 1);
    memo.set(key, result);
    return result;
  };
  return walk(0, 0);
}

/** One pattern part against one name: `*`, `?`, classes and escapes; linear backtracking to the last `*`. */
function matchSegment(pattern: string, name: string, budget: { steps: number }): boolean {
  let p = 0;
  let n = 0;
  let starP = -1;
  let starN = 0;
  while (n < name.length) {
    if (--budget.steps < 0) throw new GlobBudgetError();
    if (p < pattern.length) {
      const c = pattern[p]!;
      if (c === "*") {
        while (pattern[p] === "*") p++;
        starP = p;
        starN = n;
        continue;
      }
      const step = matchOne(pattern, p, name[n]!);
      if (step > 0) {
        p += step;
        n++;
        continue;
      }
    }
    if (starP === -1) return false;
    p = starP;
    n = ++starN;
  }
  while (pattern[p] === "*") p++;
  return p === pattern.length;
}

/** Length of the pattern token at `p` when it matches `ch`, else 0. */
function matchOne(pattern: string, p: number, ch: string): number {
  const c = pattern[p]!;
  if (c === "?") return 1;
  if (c === "\\" && p + 1 < pattern.length) return pattern[p + 1] === ch ? 2 : 0;
  if (c === "[") {
    const close = pattern.indexOf("]", p + 2);
    if (close !== -1) {
      let i = p + 1;
      const negate = pattern[i] === "!" || pattern[i] === "^";
      if (negate) i++;
      let hit = false;
      for (; i < close; i++) {
        if (pattern[i + 1] === "-" && i + 2 < close) {
          if (ch >= pattern[i]! && ch <= pattern[i + 2]!) hit = true;
          i += 2;
        } else if (pattern[i] === ch) hit = true;
      }
      return hit !== negate ? close - p + 1 : 0;
    }
  }
  return c === ch ? 1 : 0;
}

/**
 * What the sandbox does not give a program, in the one sentence set every tool description
 * carries (`execute_code`, code mode's tool, the MCP tools): a model that knows the limits writes
 * code that works instead of code that fails, or, worse, succeeds with a wrong string.
 */
import type { Language } from "../sandbox/types.js";

/**
 * The limits that remain for programs in `languages`, as text for a tool description.
 *
 * @example
 * ```ts
 * sandboxLimits(["python"]);
 * // "Limits: no network, no environment variables, no subprocesses. Python: the standard library only ..."
 * ```
 */
export function sandboxLimits(languages: readonly Language[]): string {
  const parts = ["Limits: no network, no environment variables, no subprocesses."];
  if (languages.includes("python")) {
    parts.push("Python: the standard library only, plus the packages and wheels this sandbox was configured with (python.packages, python.wheels); no pip, no installing at run time.");
  }
  if (languages.includes("javascript") || languages.includes("typescript")) {
    parts.push(
      "JavaScript/TypeScript run in QuickJS, not Node.js or a browser: the ECMAScript built-ins, console and files only; no npm packages, require, import of modules, process, timers (setTimeout), fetch, URL, TextEncoder, structuredClone or crypto.",
      "A promise that rejects and is never awaited is not reported (the run still succeeds): await every promise you start, or return it.",
      "Intl (DateTimeFormat, NumberFormat, PluralRules, Collator, RelativeTimeFormat, ListFormat, Segmenter, DisplayNames, Locale) and the toLocale…/localeCompare methods format exactly as Node.js does, for the locales and IANA time zones of Node's ICU data (default locale en-US, default time zone the same as Date's); a locale, calendar or numbering system outside that data throws a RangeError.",
    );
  }
  return parts.join(" ");
}

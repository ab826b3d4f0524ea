/**
 * The formatting behind the guest's `Intl` (see intl-shim.ts): done by this worker thread's own
 * V8 `Intl` (Node's full ICU), so the guest gets exactly Node's strings. Stateless towards the
 * guest: every call names the formatter by its spec (kind, locales, options as JSON) and passes
 * primitive values only; formatter objects are cached here in a bounded map keyed by that spec.
 * Nothing of this realm is handed to the guest: answers are strings, numbers or JSON text.
 *
 * Every input is validated and bounded here, where the guest cannot reach (STYLE.md rule 10):
 * the spec's size, its locales (count, length, each supported), its option names and values,
 * the size of strings to format, compare or segment.
 */

/** Thrown for input the guest's `Intl` refuses; the shim rethrows it as `name` (RangeError or TypeError). */
export class IntlRefusal extends Error {
  constructor(
    readonly errorName: "RangeError" | "TypeError",
    message: string,
  ) {
    super(message);
  }
}

/** The locale used when a program names none (Node's default under LANG=C / en_US). */
export const DEFAULT_LOCALE = "en-US";
/** Most characters of a formatter's spec (kind, locales, options as JSON). */
export const MAX_SPEC_CHARS = 4096;
/** Most locales one call may request. */
export const MAX_LOCALES = 16;
/** Most characters of one locale tag or one option value. */
export const MAX_TAG_CHARS = 128;
/** Most characters of a string to compare, case-map or format as a decimal / list item. */
export const MAX_TEXT_CHARS = 1_000_000;
/** Most characters of a string to segment (the answer lists every boundary). */
export const MAX_SEGMENT_CHARS = 200_000;
/** Most items of a list to format. */
export const MAX_LIST_ITEMS = 10_000;
/** Formatters kept; the oldest is dropped first (a new spec past this costs one construction). */
export const MAX_CACHED_FORMATTERS = 256;

/** The constructors the guest's `Intl` reaches, by the name the shim uses. */
export type IntlKind =
  | "DateTimeFormat"
  | "NumberFormat"
  | "PluralRules"
  | "Collator"
  | "RelativeTimeFormat"
  | "ListFormat"
  | "Segmenter"
  | "DisplayNames";

// Node 20's types lack a few newer options; V8 validates every value itself.
const DATE_FIELDS = ["weekday", "era", "year", "month", "day", "dayPeriod", "hour", "minute", "second", "fractionalSecondDigits", "timeZoneName"];
const DIGIT_OPTIONS = ["minimumIntegerDigits", "minimumFractionDigits", "maximumFractionDigits", "minimumSignificantDigits", "maximumSignificantDigits", "roundingIncrement", "roundingMode", "roundingPriority", "trailingZeroDisplay"];

/** Option names each kind accepts (what V8 in Node 20 reads); the shim copies exactly these. */
export const OPTION_NAMES: Readonly<Record<IntlKind | "Locale", readonly string[]>> = {
  DateTimeFormat: ["localeMatcher", "calendar", "numberingSystem", "hour12", "hourCycle", "timeZone", ...DATE_FIELDS, "formatMatcher", "dateStyle", "timeStyle"],
  NumberFormat: ["localeMatcher", "numberingSystem", "style", "currency", "currencyDisplay", "currencySign", "unit", "unitDisplay", "notation", "compactDisplay", "useGrouping", "signDisplay", ...DIGIT_OPTIONS],
  PluralRules: ["localeMatcher", "type", ...DIGIT_OPTIONS],
  Collator: ["localeMatcher", "usage", "sensitivity", "ignorePunctuation", "numeric", "caseFirst", "collation"],
  RelativeTimeFormat: ["localeMatcher", "numberingSystem", "style", "numeric"],
  ListFormat: ["localeMatcher", "type", "style"],
  Segmenter: ["localeMatcher", "granularity"],
  DisplayNames: ["localeMatcher", "style", "type", "fallback", "languageDisplay"],
  Locale: ["language", "script", "region", "calendar", "collation", "hourCycle", "caseFirst", "numeric", "numberingSystem"],
};

type Options = Record<string, string | number | boolean>;
type Locales = string[];

/** What the host holds for one spec: the formatter and its resolved options as JSON. */
interface Entry {
  formatter: { resolvedOptions(): object };
  resolvedJson: string;
}

const cache = new Map<string, Entry>();
/** `Intl.supportedValuesOf` answers by key, as JSON. */
const supportedValues = new Map<string, string>();

/** Number of formatters cached now (for tests of the bound). */
export function cachedFormatterCount(): number {
  return cache.size;
}

function refuse(name: "RangeError" | "TypeError", message: string): never {
  throw new IntlRefusal(name, message);
}

/** Runs `make` and turns V8's own RangeError/TypeError into a refusal with V8's message. */
function asRefusal<T>(make: () => T): T {
  try {
    return make();
  } catch (error) {
    if (error instanceof IntlRefusal) throw error;
    const name = error instanceof RangeError ? "RangeError" : "TypeError";
    refuse(name, String((error as Error).message ?? error).slice(0, 500));
  }
}

function checkText(text: string, max: number, what: string): string {
  if (text.length > max) refuse("RangeError", `Intl in this sandbox takes ${what} of at most ${max.toLocaleString("en-US")} characters (got ${text.length.toLocaleString("en-US")})`);
  return text;
}

function parseLocales(value: unknown): Locales {
  if (value === null || value === undefined) return [];
  const list = typeof value === "string" ? [value] : value;
  if (!Array.isArray(list)) refuse("TypeError", "locales must be a string or an array of strings");
  if (list.length > MAX_LOCALES) refuse("RangeError", `Intl in this sandbox takes at most ${MAX_LOCALES} locales per call (got ${list.length})`);
  for (const tag of list) {
    if (typeof tag !== "string") refuse("TypeError", "locales must be a string or an array of strings");
    if (tag.length > MAX_TAG_CHARS) refuse("RangeError", `Incorrect locale information provided (a tag of ${tag.length} characters; at most ${MAX_TAG_CHARS})`);
  }
  return asRefusal(() => Intl.getCanonicalLocales(list as string[]));
}

function parseOptions(kind: IntlKind | "Locale", value: unknown): Options {
  if (value === null || value === undefined) return {};
  if (typeof value !== "object" || Array.isArray(value)) refuse("TypeError", "options must be an object");
  const allowed = OPTION_NAMES[kind];
  const out: Options = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (!allowed.includes(key)) refuse("TypeError", `Intl.${kind} in this sandbox does not take the option ${key.slice(0, 40)}`);
    if (typeof v === "string") out[key] = checkText(v, MAX_TAG_CHARS, `option values`);
    else if (typeof v === "number" || typeof v === "boolean") out[key] = v;
    else refuse("TypeError", `option ${key} must be a string, a number or a boolean`);
  }
  return out;
}

/** Parses a spec `[kind, locales, options]` (JSON text of at most MAX_SPEC_CHARS). */
function parseSpec(specJson: string): { kind: string; locales: Locales; options: unknown } {
  if (specJson.length > MAX_SPEC_CHARS) refuse("RangeError", `Intl in this sandbox takes locales and options of at most ${MAX_SPEC_CHARS} characters as JSON`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(specJson);
  } catch {
    refuse("TypeError", "Intl: malformed request");
  }
  if (!Array.isArray(parsed) || parsed.length !== 3 || typeof parsed[0] !== "string") refuse("TypeError", "Intl: malformed request");
  return { kind: parsed[0], locales: parseLocales(parsed[1]), options: parsed[2] };
}

const CONSTRUCTORS: Record<IntlKind, new (locales: Locales, options: Options) => { resolvedOptions(): object }> = {
  DateTimeFormat: Intl.DateTimeFormat,
  NumberFormat: Intl.NumberFormat,
  PluralRules: Intl.PluralRules,
  Collator: Intl.Collator,
  RelativeTimeFormat: Intl.RelativeTimeFormat,
  ListFormat: Intl.ListFormat,
  Segmenter: (Intl as unknown as { Segmenter: new (l: Locales, o: Options) => { resolvedOptions(): object } }).Segmenter,
  DisplayNames: Intl.DisplayNames as unknown as new (l: Locales, o: Options) => { resolvedOptions(): object },
};

function isKind(kind: string): kind is IntlKind {
  return Object.hasOwn(CONSTRUCTORS, kind);
}

/**
 * The locales to use: the requested ones, or DEFAULT_LOCALE when none. When none of the
 * requested locales is in ICU's data (V8 would silently fall back to the default), a RangeError.
 */
function localesFor(kind: IntlKind, requested: Locales): Locales {
  if (requested.length === 0) return [DEFAULT_LOCALE];
  const ctor = CONSTRUCTORS[kind] as unknown as { supportedLocalesOf(l: Locales): string[] };
  if (ctor.supportedLocalesOf(requested).length === 0) {
    refuse("RangeError", `Intl in this sandbox does not support the locale ${requested.join(", ").slice(0, 200)}: it supports the locales of ICU ${process.versions.icu ?? ""} (Intl.${kind}.supportedLocalesOf tells which)`);
  }
  return requested;
}

/** Options whose unknown (but well-formed) values V8 silently replaces by the default. */
const KNOWN_VALUE_OPTIONS = [
  ["calendar", "calendar"],
  ["numberingSystem", "numberingSystem"],
  ["collation", "collation"],
] as const;
const knownValues = new Map<string, Set<string>>();

/** Refuses a calendar, numbering system or collation ICU does not have, instead of formatting with the default one. */
function checkKnownValues(kind: IntlKind | "Locale", options: Options): void {
  for (const [option, key] of KNOWN_VALUE_OPTIONS) {
    const value = options[option];
    if (typeof value !== "string") continue;
    let known = knownValues.get(key);
    if (!known) knownValues.set(key, (known = new Set((Intl as unknown as { supportedValuesOf(k: string): string[] }).supportedValuesOf(key))));
    if (!known.has(value.toLowerCase())) {
      refuse("RangeError", `Intl.${kind} in this sandbox does not support the ${option} ${value.slice(0, 40)}: Intl.supportedValuesOf('${key}') lists those it supports`);
    }
  }
}

/**
 * The options of `Date.prototype.toLocale{,Date,Time}String`, completed as ECMA-402's
 * CreateDateTimeFormat does for `required` / `defaults` (so one cached formatter serves them).
 */
function dateMethodOptions(method: string, options: Options): Options {
  const required = method === "date" ? "date" : method === "time" ? "time" : "any";
  let needDefaults = true;
  if (required !== "time" && ["weekday", "year", "month", "day"].some((k) => options[k] !== undefined)) needDefaults = false;
  if (required !== "date" && ["dayPeriod", "hour", "minute", "second", "fractionalSecondDigits"].some((k) => options[k] !== undefined)) needDefaults = false;
  const hasDateStyle = options.dateStyle !== undefined;
  const hasTimeStyle = options.timeStyle !== undefined;
  if (hasDateStyle || hasTimeStyle) needDefaults = false;
  if (required === "date" && hasTimeStyle) refuse("TypeError", "Invalid option : timeStyle");
  if (required === "time" && hasDateStyle) refuse("TypeError", "Invalid option : dateStyle");
  if (!needDefaults) return options;
  const out = { ...options };
  if (required !== "time") Object.assign(out, { year: "numeric", month: "numeric", day: "numeric" });
  if (required !== "date") Object.assign(out, { hour: "numeric", minute: "numeric", second: "numeric" });
  return out;
}

/**
 * The formatter of a spec `[kind, locales, options]`, from the cache or made now. `kind` may be
 * `Date:any|date|time` (the Date methods' defaults applied) or `Number` / `String` (plain
 * NumberFormat / Collator of `toLocaleString` / `localeCompare`).
 */
export function formatterOf(specJson: string): Entry {
  const hit = cache.get(specJson);
  if (hit) return hit;
  const spec = parseSpec(specJson);
  let kind: IntlKind;
  let options: Options;
  if (spec.kind.startsWith("Date:")) {
    kind = "DateTimeFormat";
    options = dateMethodOptions(spec.kind.slice(5), parseOptions(kind, spec.options));
  } else {
    if (!isKind(spec.kind)) refuse("TypeError", "Intl: malformed request");
    kind = spec.kind;
    options = parseOptions(kind, spec.options);
  }
  checkKnownValues(kind, options);
  const locales = localesFor(kind, spec.locales);
  const ctor = CONSTRUCTORS[kind];
  const formatter = asRefusal(() => new ctor(locales, options));
  const entry = { formatter, resolvedJson: JSON.stringify(formatter.resolvedOptions()) };
  if (cache.size >= MAX_CACHED_FORMATTERS) cache.delete(cache.keys().next().value as string);
  cache.set(specJson, entry);
  return entry;
}

/** A number the guest passed as a decimal string or a BigInt's digits, checked before V8 reads it. */
function decimal(text: string): string {
  return checkText(text, 1000, "numbers written as strings");
}

/** A value to format by NumberFormat / PluralRules: a number, or `[type, text]` for bigint / string. */
export type NumericValue = number | { bigint: string } | { decimal: string };

function numeric(value: NumericValue): number | bigint | string {
  if (typeof value === "number") return value;
  if ("bigint" in value) {
    const digits = decimal(value.bigint);
    if (!/^-?\d+$/.test(digits)) refuse("TypeError", "Intl: malformed BigInt");
    return BigInt(digits);
  }
  return decimal(value.decimal);
}

type Fmt = {
  format(x: unknown): string;
  formatToParts(x: unknown): unknown[];
  formatRange(a: unknown, b: unknown): string;
  formatRangeToParts(a: unknown, b: unknown): unknown[];
};

/** Operations the guest calls, by number (the shim's `op` codes). */
export const enum IntlOp {
  Resolved = 0,
  Format = 1,
  FormatToParts = 2,
  FormatRange = 3,
  FormatRangeToParts = 4,
  Select = 5,
  SelectRange = 6,
  Compare = 7,
  RelativeFormat = 8,
  RelativeFormatToParts = 9,
  ListFormat = 10,
  ListFormatToParts = 11,
  Segment = 12,
  DisplayOf = 13,
  CaseMap = 14,
  Locale = 15,
  CanonicalLocales = 16,
  SupportedValuesOf = 17,
  SupportedLocalesOf = 18,
}

/** The shape every operation's arguments come in: already read out of the guest and bounded. */
export type IntlArg = number | string | NumericValue | undefined;

function str(v: IntlArg, what: string, max = MAX_TEXT_CHARS): string {
  if (typeof v !== "string") refuse("TypeError", `Intl: ${what} must be a string`);
  return checkText(v, max, what);
}

function num(v: IntlArg): NumericValue {
  if (typeof v === "number" || (typeof v === "object" && v !== null)) return v;
  refuse("TypeError", "Intl: a number was expected");
}

function listItems(json: IntlArg): string[] {
  const text = str(json, "list items");
  const items = JSON.parse(text) as unknown;
  if (!Array.isArray(items) || !items.every((x) => typeof x === "string")) refuse("TypeError", "Iterable yielded a value that is not a string");
  if (items.length > MAX_LIST_ITEMS) refuse("RangeError", `Intl.ListFormat in this sandbox takes at most ${MAX_LIST_ITEMS} items`);
  return items as string[];
}

/**
 * Runs one operation; returns a string, a number or undefined (JSON text where the shim parses
 * it). Throws IntlRefusal for anything the guest's `Intl` must throw.
 */
export function intlOperation(op: IntlOp, specJson: string, a: IntlArg, b: IntlArg): string | number | undefined {
  switch (op) {
    case IntlOp.CanonicalLocales:
      return JSON.stringify(parseSpec(specJson).locales);
    case IntlOp.SupportedValuesOf: {
      const key = str(a, "the key", 40);
      // Few valid keys exist (V8 refuses the rest), so the answers are kept.
      const kept = supportedValues.get(key);
      if (kept !== undefined) return kept;
      const values = JSON.stringify(asRefusal(() => (Intl as unknown as { supportedValuesOf(k: string): string[] }).supportedValuesOf(key)));
      supportedValues.set(key, values);
      return values;
    }
    case IntlOp.SupportedLocalesOf: {
      const spec = parseSpec(specJson);
      if (!isKind(spec.kind)) refuse("TypeError", "Intl: malformed request");
      const ctor = CONSTRUCTORS[spec.kind] as unknown as { supportedLocalesOf(l: Locales, o: Options): string[] };
      const options = parseOptions(spec.kind, spec.options);
      return JSON.stringify(asRefusal(() => ctor.supportedLocalesOf(spec.locales, options)));
    }
    case IntlOp.Locale:
      return localeInfo(specJson);
    case IntlOp.CaseMap: {
      const spec = parseSpec(specJson);
      const text = str(a, "strings to case-map");
      const locales = spec.locales.length === 0 ? [DEFAULT_LOCALE] : localesFor("Collator", spec.locales);
      return asRefusal(() => (b === "upper" ? text.toLocaleUpperCase(locales) : text.toLocaleLowerCase(locales)));
    }
    default:
      break;
  }
  const { formatter, resolvedJson } = formatterOf(specJson);
  const f = formatter as unknown as Fmt & Record<string, (...args: unknown[]) => unknown>;
  const value = (v: IntlArg): unknown => (typeof v === "object" ? numeric(v) : v);
  switch (op) {
    case IntlOp.Resolved:
      return resolvedJson;
    case IntlOp.Format:
      return asRefusal(() => f.format(value(a)));
    case IntlOp.FormatToParts:
      return JSON.stringify(asRefusal(() => f.formatToParts(value(a))));
    case IntlOp.FormatRange:
      return asRefusal(() => f.formatRange(value(a), value(b)));
    case IntlOp.FormatRangeToParts:
      return JSON.stringify(asRefusal(() => f.formatRangeToParts(value(a), value(b))));
    case IntlOp.Select:
      return asRefusal(() => f.select!(numeric(num(a))) as string);
    case IntlOp.SelectRange:
      return asRefusal(() => f.selectRange!(numeric(num(a)), numeric(num(b))) as string);
    case IntlOp.Compare:
      return (formatter as Intl.Collator).compare(str(a, "strings to compare"), str(b, "strings to compare"));
    case IntlOp.RelativeFormat:
      return asRefusal(() => (formatter as Intl.RelativeTimeFormat).format(a as number, str(b, "the unit", 40) as Intl.RelativeTimeFormatUnit));
    case IntlOp.RelativeFormatToParts:
      return JSON.stringify(asRefusal(() => (formatter as Intl.RelativeTimeFormat).formatToParts(a as number, str(b, "the unit", 40) as Intl.RelativeTimeFormatUnit)));
    case IntlOp.ListFormat:
      return asRefusal(() => (formatter as unknown as Fmt).format(listItems(a)));
    case IntlOp.ListFormatToParts:
      return JSON.stringify(asRefusal(() => (formatter as unknown as Fmt).formatToParts(listItems(a))));
    case IntlOp.Segment:
      return segmentBoundaries(formatter, str(a, "strings to segment", MAX_SEGMENT_CHARS));
    case IntlOp.DisplayOf: {
      const name = asRefusal(() => (formatter as Intl.DisplayNames).of(str(a, "the code", MAX_TAG_CHARS)));
      return name;
    }
    default:
      refuse("TypeError", "Intl: malformed request");
  }
}

/**
 * Segments as the shim rebuilds them: JSON `[starts, wordLike]`, the start index of every
 * segment, and for word granularity a string of "1"/"0" per segment (isWordLike).
 */
function segmentBoundaries(formatter: object, text: string): string {
  const segments = (formatter as { segment(s: string): Iterable<{ index: number; isWordLike?: boolean }> }).segment(text);
  const starts: number[] = [];
  let wordLike = "";
  for (const s of segments) {
    starts.push(s.index);
    if (s.isWordLike !== undefined) wordLike += s.isWordLike ? "1" : "0";
  }
  return JSON.stringify([starts, wordLike]);
}

/** `new Intl.Locale(tag, options)`: its properties, and its maximized / minimized tags. */
function localeInfo(specJson: string): string {
  const spec = parseSpec(specJson);
  const tag = spec.locales[0];
  if (spec.kind !== "Locale" || tag === undefined) refuse("TypeError", "First argument to Intl.Locale constructor can't be empty or missing");
  const options = parseOptions("Locale", spec.options);
  const locale = asRefusal(() => new Intl.Locale(tag, options));
  const info: Record<string, unknown> = {};
  for (const key of ["baseName", "calendar", "caseFirst", "collation", "hourCycle", "language", "numberingSystem", "numeric", "region", "script"] as const) {
    info[key] = locale[key];
  }
  info.tag = locale.toString();
  info.maximized = locale.maximize().toString();
  info.minimized = locale.minimize().toString();
  return JSON.stringify(info);
}

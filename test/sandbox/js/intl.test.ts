/**
 * `Intl` in the JavaScript sandbox: Node's strings for what programs ask, a loud error for what
 * the sandbox does not support, and the host side's bounds (intl-host.ts) under hostile input.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createSandbox } from "../../../src/index.js";
import { cachedFormatterCount, formatterOf, MAX_CACHED_FORMATTERS } from "../../../src/sandbox/js/worker/intl-host.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

async function value(code: string): Promise<unknown> {
  const r = await sandbox.run(code);
  expect(r.error?.message ?? r.status).toBe("success");
  return r.result;
}

async function thrown(code: string): Promise<{ name: string; message: string }> {
  const r = await sandbox.run(code);
  expect(r.status).toBe("runtime_error");
  return { name: r.error!.name, message: r.error!.message };
}

describe("Intl in the sandbox", () => {
  it("gives Node's strings for the weekday and German number examples", async () => {
    expect(await value("new Date('2024-02-29').toLocaleDateString('en-US', { weekday: 'long' })")).toBe("Thursday");
    expect(await value("(1234567.891).toLocaleString('de-DE')")).toBe("1.234.567,891");
    expect(await value("typeof Intl")).toBe("object");
  });

  it("also when the method's name is computed from strings that spell it", async () => {
    expect(await value("const m = 'toLocale' + 'String'; (1234567.891)[m]('de-DE')")).toBe("1.234.567,891");
  });

  it("formats as Node does with the same locales, options and time zones", async () => {
    const cases = [
      "new Intl.NumberFormat('ja-JP', { style: 'currency', currency: 'JPY' }).format(1234567)",
      "new Date(Date.UTC(2024, 6, 4, 16)).toLocaleString('en-US', { timeZone: 'America/New_York', timeZoneName: 'long' })",
      "new Intl.DateTimeFormat('de-DE', { dateStyle: 'full', timeStyle: 'long', timeZone: 'Asia/Tokyo' }).format(Date.UTC(2024, 1, 29))",
      "['ä', 'a', 'z'].sort(new Intl.Collator('sv').compare).join()",
      "new Intl.PluralRules('cy').select(3)",
    ];
    for (const code of cases) expect(await value(code)).toBe(eval(code));
  });

  it("uses the time zone the sandbox's Date uses, by default", async () => {
    const tz = await value("new Intl.DateTimeFormat().resolvedOptions().timeZone");
    expect(tz).toBe(new Intl.DateTimeFormat().resolvedOptions().timeZone);
    expect(await value("new Date(2024, 0, 1, 12).toLocaleTimeString('en-US', { hour: 'numeric', hour12: false }) === String(new Date(2024, 0, 1, 12).getHours())")).toBe(true);
  });

  it("refuses a locale outside ICU's data with a RangeError naming the limit, where Node would fall back silently", async () => {
    for (const code of ["(5).toLocaleString('xx-YY')", "new Intl.DateTimeFormat('qq').format(0)", "'a'.localeCompare('b', 'zz')"]) {
      const e = await thrown(code);
      expect(e.name).toBe("RangeError");
      expect(e.message).toMatch(/Intl in this sandbox does not support the locale .*: it supports the locales of ICU/);
    }
  });

  it("refuses a calendar, numbering system or collation ICU does not have, where Node would use the default", async () => {
    for (const code of ["new Intl.DateTimeFormat('en', { calendar: 'mayan' })", "(1).toLocaleString('en', { numberingSystem: 'klingon' })", "new Intl.Collator('en', { collation: 'abcde' })"]) {
      const e = await thrown(code);
      expect(e.name).toBe("RangeError");
      expect(e.message).toMatch(/in this sandbox does not support the (calendar|numberingSystem|collation) .*supportedValuesOf/);
    }
  });

  it("throws V8's own errors for invalid options and values", async () => {
    expect((await thrown("new Intl.NumberFormat('en', { style: 'currency' })")).name).toBe("TypeError");
    expect((await thrown("new Intl.DateTimeFormat('en', { timeZone: 'Mars/Olympus' })")).name).toBe("RangeError");
    expect((await thrown("Intl.getCanonicalLocales('en_US')")).name).toBe("RangeError");
    expect((await thrown("new Intl.DateTimeFormat('en').format(NaN)")).name).toBe("RangeError");
  });

  it("has Intl in a session from its first call, whatever the code names", async () => {
    const session = await sandbox.createSession();
    try {
      const r = await session.run("globalThis['In' + 'tl'].NumberFormat === undefined ? 'no' : (5).toLocaleString('de-DE', { minimumFractionDigits: 1 })");
      expect(r.result).toBe("5,0");
    } finally {
      await session.dispose();
    }
  });
});

describe("Intl in session snapshots", () => {
  it("works in a session restored from a snapshot of one that used it", async () => {
    const before = await sandbox.createSession({ language: "javascript" });
    const after = await sandbox.createSession({ language: "javascript" });
    try {
      await before.run("var nf = new Intl.NumberFormat('de-DE', { style: 'currency', currency: 'EUR' });");
      const snapshot = await before.snapshot!();
      expect(typeof snapshot).not.toBe("string");
      if (typeof snapshot === "string") return;
      expect(await after.restoreSnapshot!(snapshot)).toBeUndefined();
      const r = await after.run("[nf.format(12.5), (7).toLocaleString('fr-FR', { minimumFractionDigits: 2 })]");
      expect(r.result).toEqual([new Intl.NumberFormat("de-DE", { style: "currency", currency: "EUR" }).format(12.5), "7,00"]);
    } finally {
      await before.dispose();
      await after.dispose();
    }
  });
});

describe("Intl against hostile programs", () => {
  it("bounds the strings a call copies out of the guest", async () => {
    const e = await thrown("'x'.repeat(2_000_000).localeCompare('y')");
    expect(e).toMatchObject({ name: "RangeError" });
    expect(e.message).toMatch(/at most 1,000,000 characters/);
    const s = await thrown("[...new Intl.Segmenter().segment('ab'.repeat(150_000))].length");
    expect(s.message).toMatch(/strings to segment of at most 200,000 characters/);
    expect((await thrown("new Intl.NumberFormat('en', { style: 'x'.repeat(500) })")).message).toMatch(/at most 128 characters/);
    expect((await thrown("new Intl.NumberFormat(Array.from({ length: 100 }, () => 'en'))")).message).toMatch(/at most 16 locales/);
  });

  it("reads options through getters and Proxies in the guest, and passes on only primitives", async () => {
    expect(await value("new Intl.NumberFormat('en', new Proxy({}, { get: (t, k) => (k === 'style' ? 'percent' : undefined) })).format(0.5)")).toBe("50%");
    expect(await value("new Intl.NumberFormat('en', { get style() { return { toString: () => 'percent' }; } }).format(0.25)")).toBe("25%");
    expect((await thrown("new Intl.NumberFormat('en', { get style() { throw new SyntaxError('mine'); } })")).name).toBe("SyntaxError");
    expect((await thrown("new Intl.NumberFormat('en', { style: Symbol('s') })")).name).toBe("TypeError");
  });

  it("ends recursion through toString in the guest, and the next run is fine", async () => {
    const r = await sandbox.run("const o = { get style() { return (1).toLocaleString('en', o); } }; new Intl.NumberFormat('en', o)");
    expect(r.status).toBe("runtime_error");
    expect(await value("(1234).toLocaleString('en-US')")).toBe("1,234");
  });

  it("stops a loop of Intl calls at the run's deadline", async () => {
    const started = performance.now();
    const r = await sandbox.run("let i = 0; for (;;) { new Intl.NumberFormat('en', { minimumFractionDigits: i++ % 20 }).format(i); new Date(i).toLocaleString('de-DE', { timeZone: 'Europe/Berlin' }); }", { timeoutMs: 300 });
    expect(r.status).toBe("timeout");
    expect(performance.now() - started).toBeLessThan(3000);
  });

  it("keeps at most MAX_CACHED_FORMATTERS formatters however many distinct ones are asked for", () => {
    for (let i = 0; i < MAX_CACHED_FORMATTERS * 3; i++) formatterOf(JSON.stringify(["NumberFormat", "en", { minimumIntegerDigits: (i % 21) + 1, maximumFractionDigits: i % 20, roundingIncrement: [1, 2, 5, 10][i % 4] === 1 ? 1 : 1 }]) + " ".repeat(i % 3));
    expect(cachedFormatterCount()).toBeLessThanOrEqual(MAX_CACHED_FORMATTERS);
  });

  it("refuses a spec that is not what the shim sends", () => {
    for (const spec of ["", "[", "{}", '["Function", null, null]', '["NumberFormat", [1], null]', '["NumberFormat", null, {"constructor": 1}]', '["NumberFormat", null, {"style": {}}]']) {
      expect(() => formatterOf(spec), spec).toThrow();
    }
  });
});

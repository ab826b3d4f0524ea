/**
 * The limits table (docs/sandbox.md "Options and errors"): each limit's largest value is
 * accepted and runs (no timer overflows in the JavaScript worker client, the Python host or the
 * Deno runner), the next one is refused with a message that says why, and only `maxHostCalls`
 * takes Infinity for "no limit". A value past the timers never becomes a 1 ms timeout.
 */
import { afterAll, describe, expect, it } from "vitest";
import { InvalidOptionError, createSandbox } from "../../src/index.js";
import { LIMIT_RULES, MAX_FILE_CAP_BYTES, MAX_HOST_CALLS_IN_FLIGHT, MAX_MEMORY_LIMIT_BYTES, MAX_OUTPUT_CAP_BYTES, MAX_TIMEOUT_MS, resolveRunOptions } from "../../src/sandbox/options.js";
import { MAX_TIMER_MS } from "../../src/options/index.js";

const TABLE: [keyof typeof LIMIT_RULES, number, RegExp][] = [
  ["timeoutMs", MAX_TIMEOUT_MS, /about 23 days: timers wait at most 2147483647 ms/],
  ["memoryLimitBytes", MAX_MEMORY_LIMIT_BYTES, /4 GiB: the engines are 32-bit WebAssembly/],
  ["maxOutputBytes", MAX_OUTPUT_CAP_BYTES, /32 MiB/],
  ["maxResultBytes", MAX_OUTPUT_CAP_BYTES, /32 MiB/],
  ["maxFileBytes", MAX_FILE_CAP_BYTES, /256 MiB/],
  ["maxTotalFileBytes", MAX_FILE_CAP_BYTES, /256 MiB/],
  ["maxHostCallsInFlight", MAX_HOST_CALLS_IN_FLIGHT, /from 1 to 1024/],
  ["maxHostCalls", Number.MAX_SAFE_INTEGER, /or Infinity for no limit/],
];

const warnings: string[] = [];
const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
process.on("warning", onWarning);
const sandbox = createSandbox({ poolSize: 1 });
afterAll(async () => {
  process.off("warning", onWarning);
  await sandbox.dispose();
});

describe("the limits table", () => {
  it("covers every limit of a run", () => {
    expect(TABLE.map(([name]) => name).sort()).toEqual(Object.keys(LIMIT_RULES).sort());
    expect(MAX_TIMEOUT_MS + 60_000).toBeLessThan(MAX_TIMER_MS);
  });

  it.each(TABLE)("%s: accepts its largest value %d and refuses the next, saying why", (name, max, why) => {
    expect(resolveRunOptions({ [name]: max })[name]).toBe(max);
    const next = Number.isSafeInteger(max + 1) ? max + 1 : max * 2;
    expect(() => resolveRunOptions({ [name]: next })).toThrowError(InvalidOptionError);
    expect(() => resolveRunOptions({ [name]: next })).toThrowError(why);
    expect(() => resolveRunOptions({ [name]: 1e12 * 1e12 })).toThrowError(new RegExp(`^Invalid option "${name}": got 1e\\+24`));
  });

  it("takes Infinity as no limit only for maxHostCalls", () => {
    expect(resolveRunOptions({ maxHostCalls: Number.POSITIVE_INFINITY }).maxHostCalls).toBe(Number.MAX_SAFE_INTEGER);
    for (const [name] of TABLE.filter(([n]) => n !== "maxHostCalls")) {
      expect(() => resolveRunOptions({ [name]: Number.POSITIVE_INFINITY }), name).toThrowError(new RegExp(`"${name}": got Infinity`));
    }
  });

  it("refuses timeoutMs: 1e12 instead of timing out after 1 ms", async () => {
    await expect(sandbox.run("while (true) {}", { timeoutMs: 1e12 })).rejects.toThrowError(/"timeoutMs": got 1000000000000; expected a number of milliseconds greater than 0 and at most 2000000000/);
    await expect(sandbox.run("while (true) {}", { timeoutMs: 2 ** 31 })).rejects.toThrowError(InvalidOptionError);
  });

  it("runs JavaScript at the largest time and memory limits (no timer overflow, no wrapped memory limit)", async () => {
    const r = await sandbox.run("const a = []; for (let i = 0; i < 10; i++) a.push('x'.repeat(1e5)); a.length", { timeoutMs: MAX_TIMEOUT_MS, memoryLimitBytes: MAX_MEMORY_LIMIT_BYTES });
    expect(r.status).toBe("success");
    expect(r.result).toBe(10);
    const session = await sandbox.createSession({ memoryLimitBytes: MAX_MEMORY_LIMIT_BYTES });
    expect((await session.run("6 * 7", { timeoutMs: MAX_TIMEOUT_MS })).result).toBe(42);
    await session.dispose();
    expect(warnings.filter((w) => /Timeout/.test(w))).toEqual([]);
  });

  it("runs Python at the largest time limit (the host's and the Deno runner's timers hold it)", async () => {
    const r = await sandbox.run("print(6 * 7)", { language: "python", timeoutMs: MAX_TIMEOUT_MS, memoryLimitBytes: MAX_MEMORY_LIMIT_BYTES });
    expect(r.status, JSON.stringify(r.error)).toBe("success");
    expect(r.stdout).toBe("42\n");
    expect(r.stderr).not.toMatch(/Timeout/);
    expect(warnings.filter((w) => /Timeout/.test(w))).toEqual([]);
  }, 60_000);
});

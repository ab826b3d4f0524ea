/**
 * Shared checks of the hostile-program suite: a probe of the host before and after each run,
 * a marker file that only a real escape could create, host functions that record what reached
 * them, and a fingerprint of a fresh guest context to prove the next run starts clean.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import { createSandbox, type ExecutionResult, type ExecutionStatus, type HostFunction, type JsonValue, type RunOptions, type Sandbox } from "../../src/index.js";

/** A hostile program and what the sandbox must answer. */
export interface HostileCase {
  name: string;
  code: string;
  /** Statuses that count as contained (the attack failed in an expected way). */
  statuses: ExecutionStatus[];
  options?: Omit<RunOptions, "globals" | "hostFunctions">;
  /** Wall time the run must return within (limit + grace, generous for a loaded machine). */
  maxWallMs?: number;
  /** Extra checks of the result. */
  check?: (result: ExecutionResult) => void;
}

/** The one object of the host the guest is told about; it must never change. */
const HOST_SECRET_TEMPLATE = { owner: "host", nested: { value: 1, list: [1, 2, 3] } };

/** Host state the hostile code aims at: records, a secret object, a marker directory. */
export class HostProbe {
  readonly dir = mkdtempSync(join(tmpdir(), "cgs-security-"));
  readonly marker = join(this.dir, "escaped");
  readonly secret = structuredClone(HOST_SECRET_TEMPLATE);
  /** Every argument list a host function received. */
  readonly received: unknown[][] = [];
  private snapshot = takeHostSnapshot();

  /** Host functions granted to every hostile run. Each records its arguments. */
  hostFunctions(): Record<string, HostFunction> {
    const record = (args: unknown[]) => {
      this.received.push(args);
    };
    return {
      add: (...args) => {
        record(args);
        return (args[0] as number) + (args[1] as number);
      },
      getSecret: (...args) => {
        record(args);
        return this.secret as unknown as JsonValue;
      },
      boom: (...args) => {
        record(args);
        const error = new Error(`host failure at ${this.dir}`);
        Object.assign(error, { hostFunction: () => process, hostObject: process });
        throw error;
      },
      leakProcess: (...args) => {
        record(args);
        return process as unknown as JsonValue;
      },
      leakFunction: (...args) => {
        record(args);
        return (() => process) as unknown as JsonValue;
      },
      // Host functions may fail with odd values (e.g. after odd input from the guest); the
      // sandbox must turn any of them into an exception inside the guest, never a host fault.
      throwBare: (...args) => {
        record(args);
        throw Object.create(null);
      },
      throwTrap: (...args) => {
        record(args);
        throw {
          get name(): string {
            throw new Error("name getter");
          },
          get message(): string {
            throw new Error("message getter");
          },
        };
      },
      hang: (...args) => {
        record(args);
        return new Promise(() => {});
      },
    };
  }

  /** Globals granted to every hostile run: where the marker would be written. */
  globals(): Record<string, JsonValue> {
    return { MARKER: this.marker };
  }

  /** Asserts that nothing of the host was reached or changed. */
  expectHostUntouched(): void {
    expect(existsSync(this.marker), "marker file created: the guest reached the host file system").toBe(false);
    expect(this.secret).toEqual(HOST_SECRET_TEMPLATE);
    expect(takeHostSnapshot()).toEqual(this.snapshot);
    for (const args of this.received) {
      expect(Array.isArray(args)).toBe(true);
      for (const arg of args) expectPlainJson(arg);
    }
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** What a guest would change if it reached the host's realm. */
function takeHostSnapshot() {
  const keys = (o: object) => Reflect.ownKeys(o).map(String).sort().join(",");
  const enumerable: string[] = [];
  for (const k in {}) enumerable.push(k);
  return {
    globalNames: keys(globalThis),
    objectPrototype: keys(Object.prototype),
    arrayPrototype: keys(Array.prototype),
    functionPrototype: keys(Function.prototype),
    promisePrototype: keys(Promise.prototype),
    enumerableOnObjects: enumerable.join(","),
    process: globalThis.process,
    processExit: process.exit,
    jsonStringify: JSON.stringify,
    processKeys: keys(process),
  };
}

/** Only JSON data may cross into the host: no functions, no exotic prototypes. */
export function expectPlainJson(value: unknown, depth = 0): void {
  expect(depth).toBeLessThan(10_000);
  if (value === null) return;
  const kind = typeof value;
  if (kind === "string" || kind === "boolean") return;
  if (kind === "number") return;
  expect(kind, "a non-JSON value reached the host").toBe("object");
  const proto = Object.getPrototypeOf(value);
  if (Array.isArray(value)) {
    expect(proto).toBe(Array.prototype);
    for (const item of value) expectPlainJson(item, depth + 1);
    return;
  }
  expect(proto, "an object with a foreign prototype reached the host").toBe(Object.prototype);
  for (const key of Object.keys(value as object)) expectPlainJson((value as Record<string, unknown>)[key], depth + 1);
}

/**
 * A program that describes the guest's realm: own keys of the global object and the built-in
 * prototypes, with whether each function is still native. Equal fingerprints before and after
 * an attack mean the attack left nothing behind for the next run.
 */
export const GUEST_FINGERPRINT = `
const targets = {
  globalThis, Object, "Object.prototype": Object.prototype, Array, "Array.prototype": Array.prototype,
  "Function.prototype": Function.prototype, "String.prototype": String.prototype,
  "Number.prototype": Number.prototype, Promise, "Promise.prototype": Promise.prototype,
  Error, "Error.prototype": Error.prototype, JSON, Math, Reflect, Symbol,
  "RegExp.prototype": RegExp.prototype, "Map.prototype": Map.prototype, console,
};
const out = {};
for (const name of Object.keys(targets)) {
  const t = targets[name];
  out[name] = Reflect.ownKeys(t).map((k) => {
    const d = Object.getOwnPropertyDescriptor(t, k);
    const v = d.value;
    const kind = "get" in d ? "accessor"
      : typeof v === "function" ? (Function.prototype.toString.call(v).includes("[native code]") ? "native" : "js")
      : typeof v;
    return String(k) + ":" + kind + (d.writable === false ? ":ro" : "");
  }).sort();
}
out.objectPrototypeFrozen = Object.isFrozen(Object.prototype);
out.enumerable = (() => { const e = []; for (const k in {}) e.push(k); return e; })();
out
`;

/** Runs the canary and the fingerprint: the sandbox still serves runs and they start clean. */
export async function expectServingAndClean(sandbox: Sandbox, baseline: JsonValue | undefined): Promise<void> {
  const canary = await sandbox.run("6*7");
  expect(canary.status, JSON.stringify(canary.error)).toBe("success");
  expect(canary.result).toBe(42);
  const fingerprint = await sandbox.run(GUEST_FINGERPRINT);
  expect(fingerprint.status, JSON.stringify(fingerprint.error)).toBe("success");
  expect(fingerprint.result).toEqual(baseline);
}

/** Runs one hostile case and applies every check. */
export async function runHostile(sandbox: Sandbox, probe: HostProbe, baseline: JsonValue | undefined, hostile: HostileCase) {
  const started = performance.now();
  const result = await sandbox.run(hostile.code, {
    timeoutMs: 1000,
    memoryLimitBytes: 32 * 1024 * 1024,
    ...hostile.options,
    globals: probe.globals(),
    hostFunctions: probe.hostFunctions(),
  });
  const wallMs = performance.now() - started;
  const summary = JSON.stringify({ status: result.status, error: result.error, result: result.result, wallMs }).slice(0, 600);
  expect(hostile.statuses, summary).toContain(result.status);
  if (hostile.maxWallMs !== undefined) expect(wallMs, summary).toBeLessThan(hostile.maxWallMs);
  hostile.check?.(result);
  probe.expectHostUntouched();
  await expectServingAndClean(sandbox, baseline);
  return result;
}

/** What a hostile suite shares: its sandbox, the host probe, and the fingerprint of a fresh realm. */
export interface HostileSuite {
  sandbox: Sandbox;
  probe: HostProbe;
  baseline: JsonValue | undefined;
}

/**
 * Registers `beforeAll`/`afterAll` hooks that create (and dispose) a 2-worker sandbox and a
 * host probe, and record a fresh realm's fingerprint; the fields are set once `beforeAll` ran.
 */
export function useHostileSuite(): HostileSuite {
  const suite = {} as HostileSuite;
  beforeAll(async () => {
    suite.sandbox = createSandbox({ poolSize: 2 });
    suite.probe = new HostProbe();
    const fresh = await suite.sandbox.run(GUEST_FINGERPRINT);
    expect(fresh.status).toBe("success");
    suite.baseline = fresh.result;
  });
  afterAll(async () => {
    await suite.sandbox?.dispose();
    suite.probe?.dispose();
  });
  return suite;
}

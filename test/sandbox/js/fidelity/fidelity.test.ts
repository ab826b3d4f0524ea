/**
 * The differential test against Node: every snippet of corpus.ts runs in this process (Node's
 * V8, same time zone, default locale en-US as the sandbox has) and in the sandbox through
 * `run`; every difference must be listed in allowlist.json with its reason, and every listed
 * one must still differ, so the list (mirrored in docs/sandbox.md) stays true.
 */
import { readFileSync } from "node:fs";
import { runInThisContext } from "node:vm";
import { afterAll, describe, expect, it } from "vitest";
import { createSandbox } from "../../../../src/index.js";
import { CORPUS } from "./corpus.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

/** A listed difference: why, and, for a feature Node gained later, the first Node major that has it. */
interface Allowed {
  reason: string;
  whenNodeBelow?: number;
}
const NODE_MAJOR = Number(process.versions.node.split(".")[0]);
const ALL_LISTED = JSON.parse(readFileSync(new URL("./allowlist.json", import.meta.url), "utf8")) as Record<string, Allowed>;
const ALLOWED = Object.fromEntries(Object.entries(ALL_LISTED).filter(([, a]) => a.whenNodeBelow === undefined || NODE_MAJOR < a.whenNodeBelow));

type Outcome = { value: unknown } | { threw: string };

async function inNode(code: string): Promise<Outcome> {
  try {
    const value: unknown = await runInThisContext(code);
    return { value: value === undefined ? undefined : JSON.parse(JSON.stringify(value)) };
  } catch (error) {
    return { threw: String((error as Error)?.name ?? typeof error) };
  }
}

async function inSandbox(code: string): Promise<Outcome> {
  const r = await sandbox.run(code, { timeoutMs: 5000 });
  if (r.status === "success") return { value: r.result };
  return { threw: r.error?.name ?? r.status };
}

describe("JavaScript against Node", () => {
  it("runs in a process whose default locale is the sandbox's (en-US)", () => {
    expect(new Intl.NumberFormat().resolvedOptions().locale).toBe("en-US");
  });

  it("gives Node's value for every snippet, except those listed in allowlist.json", { timeout: 120_000 }, async () => {
    const ids = CORPUS.map(([id]) => id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(CORPUS.length).toBeGreaterThanOrEqual(300);
    for (const a of Object.values(ALL_LISTED)) expect(a.reason.length).toBeGreaterThan(10);
    const differing: Record<string, { node: Outcome; sandbox: Outcome }> = {};
    for (const [id, code] of CORPUS) {
      const node = await inNode(code);
      const ours = await inSandbox(code);
      if (JSON.stringify(node) !== JSON.stringify(ours)) differing[id] = { node, sandbox: ours };
    }
    const unlisted = Object.keys(differing).filter((id) => !(id in ALLOWED));
    const vanished = Object.keys(ALLOWED).filter((id) => !(id in differing));
    const equal = CORPUS.length - Object.keys(differing).length;
    console.log(`fidelity corpus: ${CORPUS.length} snippets, ${equal} equal to Node, ${Object.keys(differing).length} listed differences`);
    expect({ unlisted: Object.fromEntries(unlisted.map((id) => [id, differing[id]])), vanished }).toEqual({ unlisted: {}, vanished: [] });
  });
});

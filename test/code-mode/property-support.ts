/**
 * The property test of exact state (property*.int.test.ts): the program generator, the
 * queries, and the check. Property test of exact state: seeded random cell programs (every top-level form JavaScript
 * and TypeScript allow — var with and without an initializer, let, const, function, class, enum,
 * labelled statements, export / export default — and Python's definitions, imports, randomness,
 * the clock, files, failing cells, cells stopped by a limit, syntax errors, parallel tool calls
 * that settle out of order) run in a live session; a fresh runner (no live session: it restores
 * from the live runner's snapshots plus the cells after the latest, or replays the whole log, a
 * thread each) must then give the same answer to a query of every name and file the programs made.
 * 200 sequences per language, batched into a few threads so that few engines start.
 * Set CODE_MODE_PROPERTY_SEED to replay a failing seed.
 */
import { expect } from "vitest";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { createSandbox } from "../../src/sandbox/sandbox.js";
import { CodeModeRunner, type CellRequest } from "../../src/code-mode/replay/runner.js";
import type { SnapshotOptions } from "../../src/code-mode/replay/snapshots.js";
import { indexTools } from "../../src/code-mode/tools/tool-bridge.js";
import type { CodeCell } from "../../src/code-mode/replay/cell-log.js";
import type { Language } from "../../src/sandbox/types.js";

/** One sandbox per test file (its engines stay warm across the sequences). */
export const sandbox = createSandbox({ poolSize: 1 });

export const SEED = Number(process.env.CODE_MODE_PROPERTY_SEED ?? 20261201);
export const SEQUENCES = 200;

/** mulberry32: a small seeded generator for the programs (not for the code under test). */
function generator(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (n: number) => Math.floor(next() * n), pick: <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]! };
}

const delay = tool(
  async ({ ms, tag }) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return tag;
  },
  { name: "delay", description: "Answers with tag after ms milliseconds.", schema: z.object({ ms: z.number(), tag: z.string() }) },
);

type Gen = ReturnType<typeof generator>;
interface Program {
  cells: string[];
  /** Names the query reads. */
  names: string[];
}

/** Cells stopped by a limit are rolled back, and a rollback rebuilds the session from the log: at most this many per thread, to keep the test fast. */
const MAX_STOPPED_PER_THREAD = 1;
let stoppedInThread = 0;

export function jsProgram(g: Gen, p: string, typescript: boolean): Program {
  const names: string[] = [];
  const cells: string[] = [];
  const expr = () =>
    g.pick([
      () => String(g.int(1000)),
      () => "Math.random()",
      () => "Date.now() % 100000",
      () => `new Date().getUTCMilliseconds()`,
      () => (names.length > 0 ? `(typeof ${g.pick(names)} === 'number' ? ${g.pick(names)} : 0) + 1` : "7"),
    ])();
  const forms = [
    () => {
      const n = `${p}v${cells.length}`;
      names.push(n);
      return `${g.pick(["var", "let", "const"])} ${n}${typescript ? ": number" : ""} = ${expr()};`;
    },
    () => {
      const n = `${p}bare`;
      names.push(n);
      return `var ${n};\n${n} = (${n} ?? 0) + 1;`;
    },
    () => {
      const n = `${p}f${cells.length}`;
      names.push(`${n}(2)`);
      // Its body reads no clock or randomness: the query calls it (and a query's own inputs are its own).
      return `function ${n}(x${typescript ? ": number" : ""}) { return x * ${g.int(9) + 1} + ${g.int(100)}; }`;
    },
    () => {
      const n = `${p}C${cells.length}`;
      names.push(`${n.toLowerCase()}i.r`);
      return `class ${n} { r = Math.random(); }\nvar ${n.toLowerCase()}i = new ${n}();`;
    },
    () => {
      const n = `${p}lab${cells.length}`;
      names.push(n);
      return `var ${n} = 0;\nouter: for (let i = 0; i < 5; i++) { for (;;) { ${n}++; if (i === 2) break outer; continue outer; } }`;
    },
    () => {
      const n = `${p}ex${cells.length}`;
      names.push(n);
      return `export const ${n} = ${expr()};\nexport default ${n};`;
    },
    () => {
      const n = `${p}t${cells.length}`;
      names.push(n);
      return `var ${n} = Math.random();\nthrow new Error('after assigning');`;
    },
    () => {
      if (stoppedInThread >= MAX_STOPPED_PER_THREAD) return `var ${p}noop${cells.length} = 0;`;
      stoppedInThread++;
      const n = `${p}lost${cells.length}`;
      names.push(`typeof ${n}`);
      return `var ${n} = 1;\nconsole.log('x'.repeat(5000));`;
    },
    () => `var ${p}syntax = ;`,
    () => `files.write('/${p}/f.txt', String(Math.random()));`,
    () => {
      const n = `${p}fr${cells.length}`;
      names.push(n);
      return `var ${n} = files.exists('/${p}/f.txt') ? files.read('/${p}/f.txt') : null;\nif (${g.int(2)}) files.delete('/${p}/f.txt');`;
    },
    () => {
      const n = `${p}ord${cells.length}`;
      names.push(n);
      const calls = Array.from({ length: 2 + g.int(2) }, (_, i) => `tools.delay({ ms: ${g.int(20)}, tag: '${i}' }).then((t) => ${n}.push(t + ':' + Math.random().toFixed(3)))`);
      return `var ${n} = [];\nawait Promise.all([${calls.join(", ")}]);`;
    },
  ];
  if (typescript) {
    forms.push(() => {
      const n = `${p}E${cells.length}`;
      names.push(`${n}.B`);
      return `enum ${n} { A, B = ${g.int(9)} }`;
    });
  }
  const length = 2 + g.int(4);
  for (let i = 0; i < length; i++) cells.push(g.pick(forms)());
  return { cells, names };
}

export function pyProgram(g: Gen, p: string): Program {
  const names: string[] = [];
  const cells: string[] = [];
  const expr = () =>
    g.pick([
      () => String(g.int(1000)),
      () => "random.random()",
      () => "time.time() % 100000",
      () => "time.perf_counter() % 1000",
      () => "os.urandom(2).hex()",
      () => "str(uuid.uuid4())[:8]",
      () => "str(datetime.datetime.now())",
    ])();
  const forms = [
    () => {
      const n = `${p}v${cells.length}`;
      names.push(n);
      return `${n} = ${expr()}`;
    },
    () => {
      const n = `${p}f${cells.length}`;
      names.push(`${n}(2)`);
      return `def ${n}(x):\n    return x * ${g.int(9) + 1}`;
    },
    () => {
      const n = `${p}C${cells.length}`;
      names.push(`${n.toLowerCase()}i.r`);
      return `class ${n}:\n    def __init__(self):\n        self.r = random.random()\n${n.toLowerCase()}i = ${n}()`;
    },
    () => {
      const n = `${p}j${cells.length}`;
      names.push(`${n}.dumps([1])`);
      return `import json as ${n}`;
    },
    () => {
      const n = `${p}t${cells.length}`;
      names.push(n);
      return `${n} = random.random()\nraise ValueError('after assigning')`;
    },
    () => {
      if (stoppedInThread >= MAX_STOPPED_PER_THREAD) return `${p}noop${cells.length} = 0`;
      stoppedInThread++;
      const n = `${p}lost${cells.length}`;
      names.push(`'${n}' in globals()`);
      return `${n} = 1\nprint('x' * 5000)`;
    },
    () => `${p}syntax = `,
    () => `import os as _os\n_os.makedirs('/${p}', exist_ok=True)\nopen('/${p}/f.txt', 'w').write(str(random.random()))`,
    () => {
      const n = `${p}fr${cells.length}`;
      names.push(n);
      return `${n} = open('/${p}/f.txt').read() if os.path.exists('/${p}/f.txt') else None\nif ${g.int(2)} and os.path.exists('/${p}/f.txt'):\n    os.remove('/${p}/f.txt')`;
    },
    () => {
      const n = `${p}ord${cells.length}`;
      names.push(n);
      const k = 2 + g.int(2);
      const calls = Array.from({ length: k }, (_, i) => `${p}one(${g.int(20)}, '${i}')`);
      return `${n} = []\nasync def ${p}one(ms, tag):\n    await tools.delay(ms=ms, tag=tag)\n    ${n}.append(tag + ':' + str(round(random.random(), 3)))\nawait asyncio.gather(${calls.join(", ")})`;
    },
  ];
  const length = 2 + g.int(4);
  for (let i = 0; i < length; i++) cells.push(g.pick(forms)());
  return { cells, names };
}

/** Runs cells as the code tool does: the log and the files follow each cell's outcome. */
class Thread {
  readonly cells: CodeCell[] = [];
  readonly files = new Map<string, Uint8Array>();
  constructor(readonly id: string) {}

  request(code: string, language: Language): CellRequest {
    return { code, language, persistence: "thread", threadId: this.id, cells: this.cells, files: this.files };
  }

  async run(runner: CodeModeRunner, code: string, language: Language): Promise<void> {
    const outcome = await runner.run(this.request(code, language));
    if (outcome.cell) this.cells.push(outcome.cell);
    for (const path of outcome.files.deleted) this.files.delete(path);
    for (const [path, bytes] of outcome.files.written) this.files.set(path, bytes);
  }
}

function runnerFor(language: Language, snapshots?: SnapshotOptions): CodeModeRunner {
  return new CodeModeRunner({
    ...(snapshots ? { snapshots } : {}),
    tools: indexTools([delay]),
    hostFunctions: {},
    sandbox,
    limits: { maxOutputBytes: 1000, timeoutMs: 10_000 },
    caps: { maxFileBytes: 1 << 20, maxThreadFilesBytes: 10 << 20, maxThreadFiles: 1000 },
    record: { maxHostResultBytes: 1 << 20, maxCellRecordBytes: 8 << 20 },
    maxSessions: 4,
  });
}

export function jsQuery(programs: Program[]): string {
  const reads = programs.flatMap((p) => p.names).map((n) => `(() => { try { return ${n}; } catch (e) { return 'error:' + e.name; } })()`);
  return `JSON.stringify([${reads.join(", ")}, files.list(), files.list().map((f) => files.read(f))])`;
}

export function pyQuery(programs: Program[]): string {
  const reads = programs.flatMap((p) => p.names).map((n) => `    _q(lambda: ${n})`);
  return `import json, os\n_out = []\ndef _q(f):\n    try:\n        _out.append(repr(f()))\n    except Exception as e:\n        _out.append('error:' + type(e).__name__)\nif True:\n${reads.join("\n") || "    pass"}\nfor _r, _d, _fs in os.walk('/'):\n    _d[:] = sorted(d for d in _d if _r != '/' or d not in ('dev', 'home', 'lib', 'proc', 'tmp'))\n    for _f in sorted(_fs):\n        _out.append(_r + '/' + _f + '=' + open(os.path.join(_r, _f)).read())\njson.dumps(_out)`;
}

export async function check(language: Language, threads: number, perThread: number, make: (g: Gen, prefix: string) => Program, query: (ps: Program[]) => string, preamble?: string) {
  const g = generator(SEED + (language === "python" ? 1 : language === "typescript" ? 2 : 0));
  // The live runner keeps snapshots every 3 cells (Python: every 8, an image costs ~0.4 s to
  // take); even threads restore from them (plus the cells after), odd threads by replaying the
  // whole log: both must answer as the live session.
  const store = new Map<string, Uint8Array>();
  const every = language === "python" ? 8 : 3;
  const snapshots: SnapshotOptions = { store: { get: async (k) => store.get(k), put: async (k, v) => void store.set(k, v) }, secret: "property test secret, 32 bytes..", every };
  const live = runnerFor(language, snapshots);
  const fromSnapshot = runnerFor(language, snapshots);
  const replaying = runnerFor(language);
  try {
    for (let t = 0; t < threads; t++) {
      const thread = new Thread(`prop-${language}-${SEED}-${t}`);
      stoppedInThread = 0;
      if (preamble) await thread.run(live, preamble, language);
      const programs: Program[] = [];
      for (let s = 0; s < perThread; s++) {
        const program = make(g, `s${t}_${s}_`);
        programs.push(program);
        for (const cell of program.cells) await thread.run(live, cell, language);
      }
      const q = query(programs);
      const a = await live.run(thread.request(q, language));
      const restored = t % 2 === 0 ? fromSnapshot : replaying;
      const b = await restored.run(thread.request(q, language));
      const ofLanguage = thread.cells.filter((c) => c.language === language).length;
      if (restored === fromSnapshot && ofLanguage >= every) expect(b.restore?.fromSnapshot, `${language} thread ${t} (seed ${SEED}): no snapshot used`).toBe(ofLanguage - (ofLanguage % every));
      expect(a.result.status, `${language} thread ${t} (seed ${SEED}): ${a.result.error?.message}`).toBe("success");
      expect(b.restore?.failures, `${language} thread ${t} (seed ${SEED})`).toEqual([]);
      expect(b.result.result, `${language} thread ${t} (seed ${SEED}): live and restored answers differ`).toEqual(a.result.result);
    }
  } finally {
    await live.dispose();
    await fromSnapshot.dispose();
    await replaying.dispose();
  }
}


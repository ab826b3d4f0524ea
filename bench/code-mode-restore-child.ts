/**
 * A fresh process for the code-mode restore bench: reads a thread's log (a JSON file written
 * by code-mode-state.ts), restores it with a new runner on a new sandbox, runs one query cell,
 * and prints one JSON line: the restore's own duration, the whole call's, and the answer.
 *   node dist/bench/code-mode-restore-child.js <log.json> <language> [snapshots <dir>] [prestart]
 * With "snapshots", the runner reads the snapshots the live run kept in <dir> (the restore
 * then replays only the cells after the latest); without, it replays the whole log. With
 * "prestart", the session's engine is started ahead (`sandbox.prestartSession`, what the
 * middleware does before each model call) and the call comes 500 ms later, as after a model's
 * short reply.
 */
import { readFileSync } from "node:fs";
import { benchRunner } from "./code-mode-state.js";
import { createSandbox } from "../src/sandbox/index.js";
import type { CodeCell } from "../src/code-mode/replay/cell-log.js";
import type { Language } from "../src/sandbox/types.js";

const [logFile, language, mode, snapshotDir, ahead] = process.argv.slice(2) as [string, Language, string | undefined, string | undefined, string | undefined];
const cells = JSON.parse(readFileSync(logFile, "utf8")) as CodeCell[];
const sandbox = createSandbox({ poolSize: 1 });
const runner = benchRunner(sandbox, mode === "snapshots" ? snapshotDir : undefined);
try {
  if (ahead === "prestart") {
    void sandbox.prestartSession(language).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const started = performance.now();
  const outcome = await runner.run({ code: "last", language, persistence: "thread", threadId: "bench", cells, files: new Map() });
  const totalMs = performance.now() - started;
  console.log(
    JSON.stringify({
      restoreMs: outcome.restore?.durationMs ?? -1,
      totalMs,
      result: outcome.result.result ?? null,
      failures: outcome.restore?.failures.length ?? -1,
      fromSnapshot: outcome.restore?.fromSnapshot ?? 0,
      ...(outcome.restore?.snapshotRefused ? { snapshotRefused: outcome.restore.snapshotRefused } : {}),
    }),
  );
} finally {
  // Held open while the engines stop: a Python session's process can be unref'd before its exit is seen.
  const hold = setTimeout(() => undefined, 30_000);
  await runner.dispose();
  await sandbox.dispose();
  clearTimeout(hold);
}

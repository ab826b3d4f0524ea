/**
 * The `execute_code` tools made from code interpreters, and what each one holds: its sessions
 * (to prestart and dispose) and when its description is complete. Keyed weakly by the tool, so a
 * tool nobody holds is collected with its entry.
 */
import type { ToolRuntime } from "@langchain/core/tools";
import type { CodeModeRunner } from "../replay/runner.js";
import type { CodeCell } from "../thread/state.js";
import { codeThreadOf } from "./call-place.js";
import type { CodeInterpreter } from "./code-interpreter.js";

const signaturesReady = new WeakMap<object, Promise<void>>();
/** The tools made with `persistence: "thread"`. */
const threadPersistence = new WeakSet<object>();
const runners = new WeakMap<object, CodeModeRunner>();

/**
 * Records `made`, the tool of `interpreter`: its runner, and its description replaced by the one
 * with generated signatures once ready. Returns `made`.
 */
export function registerCodeInterpreterTool<T extends { description: string }>(made: T, interpreter: CodeInterpreter): T {
  if (interpreter.fullDescription) {
    signaturesReady.set(
      made,
      interpreter.fullDescription.then(
        (description) => {
          made.description = description;
        },
        () => undefined,
      ),
    );
  }
  runners.set(made, interpreter.runner);
  if (interpreter.persistence === "thread") threadPersistence.add(made);
  return made;
}

/**
 * Starts ahead, while the model writes its reply, the engines the tool's next call on this
 * thread would have to restore its sessions in (`CodeModeRunner.prestart`): called by the
 * middleware before each model call, with that node's state and config (its graph is the
 * tool's). Does nothing for a tool without thread persistence, or a thread with no cells.
 */
export function prestartCodeThread(made: object, state: Record<string, unknown> | undefined, config: ToolRuntime["config"] | undefined): void {
  const runner = runners.get(made);
  const cells = state?.codeCells;
  const threadId = codeThreadOf(config);
  if (!runner || !threadPersistence.has(made) || threadId === undefined || !Array.isArray(cells) || cells.length === 0) return;
  runner.prestart(threadId, cells as CodeCell[]);
}

/** Resolves when the tool's description holds its generated tool signatures (for middleware and tests). */
export function codeInterpreterToolReady(made: object): Promise<void> {
  return signaturesReady.get(made) ?? Promise.resolve();
}

/** Disposes the live sessions a code tool keeps (they are also disposed when evicted). */
export async function disposeCodeInterpreterTool(made: object): Promise<void> {
  await runners.get(made)?.dispose();
}

/** The runner of a tool (for tests and the bench: live-session count). */
export function codeInterpreterRunner(made: object): CodeModeRunner | undefined {
  return runners.get(made);
}

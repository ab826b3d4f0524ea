/**
 * What `instrument.ts`'s enter/exit calls record: the module that runs after each event (the
 * innermost frame still open; an async frame stays open until it settles), and the measures of
 * that walk.
 */
import { dirname } from "node:path";

interface Frame { id: number; module: string }

export interface WalkMeasures {
  /** Distinct modules of src/ entered. */
  files: number;
  /** Moves from a module in one top-level folder of src/ to a module in another. */
  folderCrossings: number;
  /** The same, counting sub-folders (`code-mode/thread` ≠ `code-mode/replay`). */
  subFolderCrossings: number;
  /** Returns from a module to a caller in another top-level folder. */
  returnsUp: number;
  /** The modules entered most often again after leaving them (times each). */
  reentered: [string, number][];
}

export class WalkRecorder {
  private stack: Frame[] = [];
  private next = 0;
  readonly active: string[] = [];
  returnsUp = 0;
  recording = false;

  enter(module: string): number | undefined {
    if (!this.recording) return undefined;
    const id = this.next++;
    this.stack.push({ id, module });
    this.note(module);
    return id;
  }

  exit(id: number | undefined): void {
    if (id === undefined || !this.recording) return;
    const at = this.stack.findLastIndex((frame) => frame.id === id);
    if (at < 0) return;
    const [left] = this.stack.splice(at, 1);
    const top = this.stack.at(-1);
    if (top && top.module !== left!.module && folder(top.module) !== folder(left!.module)) this.returnsUp++;
    if (top) this.note(top.module);
  }

  private note(module: string): void {
    if (this.active.at(-1) !== module) this.active.push(module);
  }

  measures(): WalkMeasures {
    const crossings = (of: (m: string) => string) => this.active.slice(1).filter((m, i) => of(m) !== of(this.active[i]!)).length;
    const counts = new Map<string, number>();
    for (const m of this.active) counts.set(m, (counts.get(m) ?? 0) + 1);
    return {
      files: counts.size,
      folderCrossings: crossings(folder),
      subFolderCrossings: crossings((m) => dirname(m)),
      returnsUp: this.returnsUp,
      reentered: [...counts].sort((a, b) => b[1] - a[1]).slice(0, 3),
    };
  }
}

/** The top-level folder of a module of src/ (`code-mode/replay/runner.ts` → `code-mode`). */
const folder = (module: string) => module.split("/")[0]!;

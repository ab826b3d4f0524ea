/** What a guest context needs from the worker that hosts it. */
import type { OutputMirror } from "../shared/output-mirror.js";

/** Where the worker sends what a run produces while it runs. */
export interface GuestHost {
  output(runId: number, stdout: string, stderr: string): void;
  /** Shared copy of unsent output, read by the host if it must kill the worker. */
  mirror?: OutputMirror;
  call(runId: number, callId: number, name: string, argsJson: string): void;
}

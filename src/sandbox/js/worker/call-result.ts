/** The result type of a call into the guest, in a module of its own so that the runtime and the helpers need not import each other. */
import type { QuickJSContext } from "quickjs-emscripten-core";

/** What a call into the guest gives back: its value or what it threw (the caller disposes either). */
export type CallResult = ReturnType<QuickJSContext["callFunction"]>;

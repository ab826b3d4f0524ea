/**
 * The type checker's worker thread: `tsc` of a command line checks its files here, never on
 * the host thread (a 1 KB program of template-literal unions keeps the checker busy for seconds,
 * and loading TypeScript blocks an event loop the first time: `npm run bench -- typecheck`, row
 * "first check (loads typescript and its library)"). The host owns this
 * thread (`type-check-thread.ts`): it bounds its heap and terminates it when the command that
 * asked is stopped. It reads no file of the host but TypeScript's own library files.
 */
import { parentPort } from "node:worker_threads";
import { checkTypes } from "../../typecheck/check-types.js";
import type { CheckerReply, CheckerRequest } from "./protocol.js";

const port = parentPort!;

port.on("message", (request: CheckerRequest) => {
  void (async () => {
    let reply: CheckerReply;
    try {
      const results = [];
      for (const code of request.sources) {
        const check = await checkTypes(code, { files: true, declarations: request.declarations, maxDiagnostics: request.maxDiagnostics });
        results.push(check.ok ? [] : check.diagnostics);
      }
      reply = { id: request.id, results };
    } catch (error) {
      reply = { id: request.id, error: error instanceof Error ? error.message : String(error) };
    }
    port.postMessage(reply);
  })();
});

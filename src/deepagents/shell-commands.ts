/**
 * What a command line in the sandbox may run: every command is granted here by name, nothing
 * by default. just-bash's built-in commands work on the sandbox's in-memory files only; the
 * ones left out could reach past them (the reasons are beside each), and the programs are
 * ours, run on the package's own engines.
 */
import type { CommandName } from "just-bash";
import type { ProgramName } from "./protocol.js";

/**
 * just-bash commands granted to command lines. Left out on purpose:
 * - `curl`, `html-to-markdown`: network (just-bash registers `curl` only with a network
 *   configuration; this sandbox never gives one);
 * - `sqlite3`: runs sql.js in a thread of its own, whose WebAssembly memory Node's worker
 *   limits do not cap (just-bash's own security notes);
 * - `tar`: loads native add-ons (`node-liblzma`, `@mongodb-js/zstd`) into the process when
 *   they are installed;
 * - `file`: bundles a file-type reader with a host file-system path (`fromFile`), not needed
 *   for anything else here;
 * - `ln`: the store has no links (the replica refuses them too);
 * - `help`: it lists just-bash's full set, not this one (an unknown command lists this one);
 * - `python3`, `python`, `js-exec`, `node`: just-bash's own CPython/QuickJS runtimes; ours
 *   replace them (below).
 */
export const GRANTED_COMMANDS: readonly CommandName[] = [
  "echo", "cat", "printf", "ls", "mkdir", "rmdir", "touch", "rm", "cp", "mv", "chmod", "pwd", "readlink",
  "head", "tail", "wc", "stat", "grep", "fgrep", "egrep", "rg", "sed", "awk", "sort", "uniq", "comm", "cut",
  "paste", "tr", "rev", "nl", "fold", "expand", "unexpand", "strings", "split", "column", "join", "tee", "find",
  "basename", "dirname", "tree", "du", "env", "printenv", "alias", "unalias", "history", "xargs", "true",
  "false", "clear", "bash", "sh", "jq", "base64", "diff", "date", "sleep", "timeout", "seq", "expr", "md5sum",
  "sha1sum", "sha256sum", "which", "tac", "hostname", "od", "gzip", "gunzip", "zcat", "yq", "xan", "time", "whoami",
];

/** Programs forwarded to the host's engines, by the names a command line uses. */
export const PROGRAM_COMMANDS: Readonly<Record<string, ProgramName>> = {
  python: "python",
  python3: "python",
  node: "node",
  tsx: "typescript",
  "ts-node": "typescript",
  tsc: "tsc",
};

/** Shell built-ins worth naming in the list of what is available. */
const BUILTINS = ["cd", "export", "exit", "source", "test", "[", "read", "set", "unset", "local", "if", "for", "while", "case", "function"];

/** One line that lists every command a command line can use, for the "command not found" message. */
export function availableCommandsLine(): string {
  const names = [...Object.keys(PROGRAM_COMMANDS), ...GRANTED_COMMANDS].sort();
  return `Available commands: ${names.join(" ")}; shell built-ins: ${BUILTINS.join(" ")}.`;
}

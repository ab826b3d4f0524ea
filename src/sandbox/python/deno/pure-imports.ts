/**
 * The closed list of WebAssembly imports a pool run may call and still be reset in place.
 * Every other import (a file written or created, a JS object touched, a timer, a proxy, a
 * descriptor duplicated, the memory grown, ...) marks the interpreter touched, and its worker is
 * replaced. Each entry below was checked against Pyodide 314.0.7's pyodide.asm.mjs: it writes
 * only into the WebAssembly memory (restored byte for byte) or into the objects the reset
 * restores property by property (interpreter-baseline.ts: Module, its API, FS, SYSCALLS, the
 * descriptor table and the baseline streams with their nodes). Re-check this table when Pyodide
 * moves.
 *
 * Runs inside the Deno worker.
 */
import type { ImportClassifier } from "./wasm-imports.js";

/** The parts of Emscripten's FS the checks read. */
export interface PurityFs {
  streams: Array<{ node?: { mode?: number } } | null | undefined>;
  isFile(mode: number): boolean;
  isDir(mode: number): boolean;
}

const O_ACCMODE = 3;
/** O_CREAT | O_EXCL | O_TRUNC | O_APPEND | O_TMPFILE (Emscripten's values). */
const O_WRITE_SIDE_EFFECTS = 64 | 128 | 512 | 1024 | 4194304;
const F_GETFD = 1;
const F_SETFD = 2; // a no-op in Emscripten
const F_GETFL = 3;
const F_SETFL = 4;
const TCGETS = 21505;
const TIOCGWINSZ = 21523;

/** Imports that read the clock, the time zone or the entropy source and write only WebAssembly memory. */
const ALWAYS_PURE = new Set([
  // clocks and calendar (Date / performance reads; results written into memory)
  "clock_time_get", "clock_res_get", "emscripten_get_now", "emscripten_date_now", "_emscripten_get_now_is_monotonic",
  "emscripten_get_now_res", "_localtime_js", "_gmtime_js", "_mktime_js", "_timegm_js", "_tzset_js",
  // crypto.getRandomValues into memory
  "random_get",
  // the interrupt buffer: reads and clears the shared slot the runner writes before every run
  "_Py_CheckEmscriptenSignals_Helper",
  // reads only
  "__syscall_getcwd", "__syscall_stat64", "__syscall_lstat64", "__syscall_newfstatat", "__syscall_fstat64",
  "__syscall_readlinkat", "__syscall_faccessat", "fd_fdstat_get", "emscripten_get_heap_max",
  // the entry call's return value: JS strings made from memory (Module._asciiTextDecoder is
  // created on first use; Module is restored property by property)
  "_python2js_ascii", "_python2js_ucs1", "_python2js_ucs2", "_python2js_ucs4",
  "JsvNoValue_Check",
  // numbers handed to JavaScript (a code object's flags, a task's result): primitives made from memory
  "JsvNum_fromInt", "JsvNum_fromDouble", "JsvBigInt_fromInt", "JsvBigInt_fromDigits",
  // whether a JavaScript value is a proxy of a Python object (a read)
  "pyproxy_Check",
  // a C string read out of memory into a JavaScript string (attribute names)
  "JsvUTF8ToString",
]);

function isPrimitive(value: unknown): boolean {
  const type = typeof value;
  return value === null || type === "string" || type === "number" || type === "boolean" || type === "undefined" || type === "bigint";
}

/**
 * The classifier for one interpreter. `baselineStreams` are the descriptor table entries of a
 * pristine interpreter (stdin, stdout, stderr); `isProxy` tells a JS Proxy (whose traps would
 * run code) from a plain array.
 *
 * `isPyProxy` tells a live proxy of a Python object that converts back to its pointer (not a
 * round-trip proxy, which would make a new JsProxy).
 *
 * @example
 * watch.setClassifier(createPurityClassifier(fs, [fs.streams[0], fs.streams[1], fs.streams[2]], types.isProxy, isPlainPyProxy));
 */
export function createPurityClassifier(
  fs: PurityFs,
  baselineStreams: readonly unknown[],
  isProxy: (value: unknown) => boolean,
  isPyProxy: (value: unknown) => boolean = () => false,
): ImportClassifier & { resetRun(): void } {
  /** Descriptors this run opened read-only (they are dropped by the reset). */
  const opened = new Set<number>();
  const isArray = Array.isArray;

  const classify = (name: string, args: unknown[], result: unknown, threw: boolean): boolean => {
    if (threw) return false;
    if (ALWAYS_PURE.has(name)) return true;
    switch (name) {
      case "fd_write":
        // stdout and stderr of a pristine interpreter: the bytes go to the worker's writer;
        // FS.write moves stream.position and Pyodide stamps node.timestamp (both restored).
        return (args[0] === 1 || args[0] === 2) && fs.streams[args[0] as number] === baselineStreams[args[0] as number];
      case "__syscall_openat": {
        const flags = Number(args[2]);
        if ((flags & O_ACCMODE) !== 0 || (flags & O_WRITE_SIDE_EFFECTS) !== 0) return false;
        const fd = Number(result);
        if (!(fd >= 0)) return true; // nothing was opened
        const mode = fs.streams[fd]?.node?.mode;
        // Regular files and directories only: a device's open handler has state of its own.
        if (typeof mode !== "number" || !(fs.isFile(mode) || fs.isDir(mode))) return false;
        opened.add(fd);
        return true;
      }
      case "fd_read":
      case "fd_pread":
      case "fd_seek":
      case "__syscall_getdents64":
        return opened.has(Number(args[0]));
      case "fd_close": {
        const fd = Number(args[0]);
        if (!opened.has(fd)) return false;
        opened.delete(fd);
        return true;
      }
      case "__syscall_fcntl64": {
        const cmd = Number(args[1]);
        if (cmd === F_GETFD || cmd === F_SETFD || cmd === F_GETFL) return true;
        return cmd === F_SETFL && opened.has(Number(args[0]));
      }
      // Pyodide asks whether the descriptor is a socket first; it is not (no socket op ran).
      case "_try_fcntl64":
        return result === false || result === 0;
      case "__syscall_ioctl": {
        const op = Number(args[1]);
        return op === TCGETS || op === TIOCGWINSZ;
      }
      // The worker's own call into Python: Pyodide reads the arguments (strings) out of a plain
      // array and converts them; an object argument would make a JsProxy (not allowed here).
      // A proxy of a Python object among them (the run driver passes code objects, namespaces,
      // coroutines) converts back to its pointer with a reference count, in memory.
      case "JsvArray_Get":
        return isArray(args[0]) && !isProxy(args[0]) && (isPrimitive(result) || isPyProxy(result));
      case "js2python_js":
        return isPrimitive(args[0]) || isPyProxy(args[0]);
      // A proxy of a Python object for the worker (the run driver takes the compiled cell and
      // the values it returns as proxies): a JS object plus a reference count in memory. It is
      // registered with Pyodide's finalization registry, whose registrations of a run are all
      // released when the run ends (async-sources.ts), before the reset: nothing of it outlives
      // the run. Unregistered proxies (gcRegister false) are not allowed.
      case "pyproxy_new_ex":
        return args[3] !== 0 && args[3] !== false;
      // Pyodide's cache of the proxies of a proxy's attributes (the driver's method calls): a
      // JavaScript Map of the proxy that made them, holding proxies released with the run (a
      // dead entry is dropped on the next lookup). Memory is not touched.
      case "proxy_cache_get":
      case "proxy_cache_set":
        return true;
      default:
        return false;
    }
  };
  return Object.assign(classify, {
    resetRun() {
      opened.clear();
    },
  });
}

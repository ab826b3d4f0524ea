/**
 * Names a run's `globals` and `hostFunctions` may not take: what the sandbox or the language
 * already gives every program. A global named `console` or `JSON` would replace it and break
 * the program's own use of it, so such a name is refused up front.
 */
import type { Language } from "./types.js";

/** The sandbox's own globals in JavaScript/TypeScript (its console and the `files` API). */
const SANDBOX_JS = ["console", "files"];

/** The global object of a fresh QuickJS context (quickjs-emscripten 0.32: the ECMAScript built-ins). */
const ECMASCRIPT = `Error EvalError RangeError ReferenceError SyntaxError TypeError URIError InternalError AggregateError
Array Object Function Iterator parseInt parseFloat isNaN isFinite decodeURI decodeURIComponent encodeURI encodeURIComponent
escape unescape Infinity NaN undefined eval Number Boolean String Math Reflect Symbol globalThis BigInt Date RegExp JSON
Proxy Map Set WeakMap WeakSet ArrayBuffer SharedArrayBuffer Uint8ClampedArray Int8Array Uint8Array Int16Array Uint16Array
Int32Array Uint32Array BigInt64Array BigUint64Array Float16Array Float32Array Float64Array DataView Promise WeakRef
FinalizationRegistry`.split(/\s+/);

/** Python's built-in functions, constants and exception types (`dir(builtins)` without `_` names). */
const PYTHON = `ArithmeticError AssertionError AttributeError BaseException BaseExceptionGroup BlockingIOError BrokenPipeError
BufferError BytesWarning ChildProcessError ConnectionAbortedError ConnectionError ConnectionRefusedError
ConnectionResetError DeprecationWarning EOFError Ellipsis EncodingWarning EnvironmentError Exception ExceptionGroup False
FileExistsError FileNotFoundError FloatingPointError FutureWarning GeneratorExit IOError ImportError ImportWarning
IndentationError IndexError InterruptedError IsADirectoryError KeyError KeyboardInterrupt LookupError MemoryError
ModuleNotFoundError NameError None NotADirectoryError NotImplemented NotImplementedError OSError OverflowError
PendingDeprecationWarning PermissionError ProcessLookupError PythonFinalizationError RecursionError ReferenceError
ResourceWarning RuntimeError RuntimeWarning StopAsyncIteration StopIteration SyntaxError SyntaxWarning SystemError
SystemExit TabError TimeoutError True TypeError UnboundLocalError UnicodeDecodeError UnicodeEncodeError UnicodeError
UnicodeTranslateError UnicodeWarning UserWarning ValueError Warning ZeroDivisionError abs aiter all anext any ascii bin
bool breakpoint bytearray bytes callable chr classmethod compile complex copyright credits delattr dict dir divmod
enumerate eval exec exit filter float format frozenset getattr globals hasattr hash help hex id input int isinstance
issubclass iter len license list locals map max memoryview min next object oct open ord pow print property quit range
repr reversed round set setattr slice sorted staticmethod str sum super tuple type vars zip`.split(/\s+/);

const JS_RESERVED = new Set([...SANDBOX_JS, ...ECMASCRIPT]);
const PYTHON_RESERVED = new Set(PYTHON);

/**
 * Why `name` may not be granted to a program in `language`, or `undefined` when it may.
 *
 * @example
 * reservedNameReason("console", "javascript"); // "the sandbox's console"
 * reservedNameReason("data", "python"); // undefined
 */
export function reservedNameReason(name: string, language: Language): string | undefined {
  if (language === "python") {
    if (PYTHON_RESERVED.has(name)) return `Python's built-in ${name}`;
    if (name.startsWith("__") && name.endsWith("__")) return "a name Python keeps for itself";
    return undefined;
  }
  if (SANDBOX_JS.includes(name)) return `the sandbox's ${name}`;
  if (JS_RESERVED.has(name)) return `the JavaScript built-in ${name}`;
  return undefined;
}

/**
 * Retry of model calls: 429, 5xx, timeouts and connection failures are retried with
 * exponential back-off; anything else fails at once. Delays are injectable so tests are fast.
 */
import { ModelCallError, ModelUnavailableError } from "./errors.js";
import { truncate } from "../feedback/truncate.js";
import { checkOptions, functionRule, integerRule, millisecondsRule, textRule, type OptionRules } from "../options/index.js";

/** Why a model call failed, as far as retrying is concerned. */
export interface ModelErrorKind {
  kind: "rate_limit" | "server" | "timeout" | "connection" | "client" | "aborted" | "unknown";
  retryable: boolean;
  /** HTTP status, when the error carries one. */
  status?: number;
}

/**
 * Classifies an error thrown by a chat model call (OpenAI SDK errors, fetch errors, plain errors
 * with a `status`).
 *
 * @example
 * ```ts
 * classifyModelError(Object.assign(new Error("slow down"), { status: 429 }));
 * // { kind: "rate_limit", retryable: true, status: 429 }
 * ```
 */
export function classifyModelError(error: unknown): ModelErrorKind {
  const e = (error ?? {}) as { name?: unknown; status?: unknown; code?: unknown; message?: unknown; constructor?: { name?: string }; response?: { status?: unknown } };
  const status = typeof e.status === "number" ? e.status : typeof e.response?.status === "number" ? e.response.status : undefined;
  const names = `${String(e.name ?? "")} ${e.constructor?.name ?? ""}`;
  const code = String(e.code ?? "");
  if (/AbortError/.test(names) || code === "ABORT_ERR") return { kind: "aborted", retryable: false };
  if (status === 429) return { kind: "rate_limit", retryable: true, status };
  if (status === 408 || /Timeout/i.test(names) || code === "ETIMEDOUT") {
    return status === undefined ? { kind: "timeout", retryable: true } : { kind: "timeout", retryable: true, status };
  }
  if (status !== undefined && status >= 500) return { kind: "server", retryable: true, status };
  if (status !== undefined) return { kind: "client", retryable: false, status };
  if (/APIConnectionError|FetchError/.test(names) || /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|EPIPE|UND_ERR)/.test(code)) {
    return { kind: "connection", retryable: true };
  }
  if (typeof e.message === "string" && /ECONNREFUSED|socket hang up|fetch failed|Connection error/i.test(e.message)) {
    return { kind: "connection", retryable: true };
  }
  return { kind: "unknown", retryable: false };
}

/** Options of {@link callModelWithRetry}. */
export interface ModelRetryOptions {
  /** Retries after the first call. Default 3. */
  maxRetries?: number;
  /** Delay before the first retry; doubles each time. A server's `Retry-After` wins (up to `maxDelayMs`). Default 500. */
  initialDelayMs?: number;
  /** Upper bound of one delay. Default 8000. */
  maxDelayMs?: number;
  /** How to wait; tests pass one that returns at once. Default: `setTimeout`. */
  sleep?: (delayMs: number) => Promise<void>;
  /** Called before each retry (for progress output). */
  onRetry?: (info: { retry: number; delayMs: number; error: unknown; kind: ModelErrorKind }) => void;
  /** Server the model calls, named in the error message when it cannot be reached. */
  baseURL?: string;
}

/** The rules of {@link ModelRetryOptions} (every delay is one a timer can wait for). */
export const MODEL_RETRY_RULES = {
  maxRetries: integerRule({ min: 0, max: 100, unit: "retries" }),
  initialDelayMs: millisecondsRule(undefined, { exclusiveMin: false }),
  maxDelayMs: millisecondsRule(undefined, { exclusiveMin: false }),
  sleep: functionRule("a function (delayMs) => Promise<void>"),
  onRetry: functionRule("a function ({ retry, delayMs, error, kind }) => void"),
  baseURL: textRule({ what: "a URL" }),
} satisfies OptionRules<ModelRetryOptions>;

/**
 * Checks the options of model-call back-off (`modelRetry` of the graph, the tools and the SDK).
 *
 * @throws InvalidOptionError naming `modelRetry.NAME` (or `prefix` + NAME).
 * @example
 * checkModelRetry({ maxRetries: 0 }); // { maxRetries: 0 }
 */
export function checkModelRetry(options: unknown, prefix = "modelRetry."): ModelRetryOptions {
  return checkOptions<ModelRetryOptions>(options, MODEL_RETRY_RULES, prefix.slice(0, -1), prefix);
}

const defaultSleep = (delayMs: number) => new Promise<void>((resolve) => setTimeout(resolve, delayMs));

/**
 * Calls `call`, retrying errors that a later call may not have. After the last retry it throws
 * {@link ModelUnavailableError}; a non-retryable error becomes {@link ModelCallError} at once.
 * An abort is re-thrown unchanged.
 *
 * @example
 * ```ts
 * const reply = await callModelWithRetry(() => model.invoke(messages), { maxRetries: 2 });
 * ```
 */
export async function callModelWithRetry<T>(call: () => Promise<T>, options: ModelRetryOptions = {}): Promise<T> {
  const maxRetries = options.maxRetries ?? 3;
  const initialDelayMs = options.initialDelayMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 8000;
  const sleep = options.sleep ?? defaultSleep;
  for (let retry = 0; ; retry++) {
    try {
      return await call();
    } catch (error) {
      const kind = classifyModelError(error);
      if (kind.kind === "aborted") throw error;
      if (!kind.retryable) {
        throw new ModelCallError(`The model call failed${kind.status === undefined ? "" : ` with HTTP ${kind.status}`}: ${firstLine(error)}`, kind.status, { cause: error });
      }
      if (retry >= maxRetries) {
        throw new ModelUnavailableError(unavailableMessage(kind, retry + 1, error, options.baseURL), retry + 1, options.baseURL, { cause: error });
      }
      // A server's Retry-After is bounded by maxDelayMs, itself a delay a timer can wait for.
      const delayMs = Math.min(maxDelayMs, retryAfterMs(error) ?? initialDelayMs * 2 ** retry);
      options.onRetry?.({ retry: retry + 1, delayMs, error, kind });
      await sleep(delayMs);
    }
  }
}

/** The server's `Retry-After` (seconds) in milliseconds, when the error carries one. */
function retryAfterMs(error: unknown): number | undefined {
  const headers = (error as { headers?: unknown } | null)?.headers;
  let value: unknown;
  if (headers instanceof Headers) value = headers.get("retry-after");
  else if (headers !== null && typeof headers === "object") value = (headers as Record<string, unknown>)["retry-after"];
  const seconds = Number(value);
  return value !== null && value !== undefined && value !== "" && Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}

function unavailableMessage(kind: ModelErrorKind, calls: number, error: unknown, baseURL: string | undefined): string {
  const tries = `${calls} call${calls === 1 ? "" : "s"}`;
  switch (kind.kind) {
    case "connection":
      return `Could not reach the model server${baseURL === undefined ? "" : ` at ${baseURL}`} after ${tries}: ${sentence(firstLine(error))} Start the server or set OPENAI_BASE_URL to one that is running.`;
    case "rate_limit":
      return `The model kept answering 429 (rate limit) after ${tries}; wait and try again, or use another model (CODEGEN_MODEL).`;
    case "timeout":
      return `The model did not answer in time after ${tries}; try again, or raise CODEGEN_MODEL_TIMEOUT_MS.`;
    default:
      return `The model server kept failing${kind.status === undefined ? "" : ` with HTTP ${kind.status}`} after ${tries}: ${sentence(firstLine(error))}`;
  }
}

/** `text` as a sentence: ends with one full stop (a client's "Connection error." keeps its own). */
function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const line = text.split("\n").find((l) => l.trim() !== "") ?? text;
  return truncate(line.trim(), 200);
}

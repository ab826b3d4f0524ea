/**
 * Errors of model configuration and model calls. Each says what to do, in one line.
 */
import { CodeGenSandboxError } from "../errors.js";

/**
 * The model cannot be built from the configuration: no model given, a missing API key, or a
 * provider whose package is not installed. `variable` names the environment variable to set.
 *
 * @example
 * ```ts
 * try { await graph.invoke({ task }); }
 * catch (error) { if (error instanceof ModelConfigurationError) console.error(error.message); }
 * ```
 */
export class ModelConfigurationError extends CodeGenSandboxError {
  override name = "ModelConfigurationError";
  constructor(
    message: string,
    readonly variable?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * The model server could not be reached or kept failing after every retry (connection refused,
 * timeouts, 429, 5xx). `baseURL` is the server that was tried, when known. The graph turns it
 * into a failed run whose explanation carries this message.
 *
 * @example
 * ```ts
 * await callModelWithRetry(() => model.invoke("hi")).catch((e) => e instanceof ModelUnavailableError);
 * ```
 */
export class ModelUnavailableError extends CodeGenSandboxError {
  override name = "ModelUnavailableError";
  constructor(
    message: string,
    readonly attempts: number,
    readonly baseURL?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * The model call failed with an error that retrying will not fix (e.g. 400, 401, 404).
 *
 * @example
 * ```ts
 * await callModelWithRetry(() => model.invoke("hi")).catch((e) => e instanceof ModelCallError && e.status === 401);
 * ```
 */
export class ModelCallError extends CodeGenSandboxError {
  override name = "ModelCallError";
  constructor(
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * A scripted OpenAI-compatible chat server for tests: `node:http` on 127.0.0.1, a free port,
 * `/v1/chat/completions` (JSON and SSE streaming, tool calls, usage) and `/v1/models`.
 * Replies come from a queue and/or a handler; every request body is recorded.
 */
import { createServer } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { InvalidOptionError } from "../errors.js";
import { arrayRule, checkOptions, functionRule, integerRule, MAX_TIMER_MS, rule, textRule, type OptionRules } from "../options/index.js";

/** A tool call the scripted model makes. `args` is sent as its JSON text. */
export interface ScriptedToolCall {
  /** Default `call_<n>`. */
  id?: string;
  name: string;
  args: unknown;
}

/** Token counts reported for a reply. When absent, both are estimated as characters / 4. */
export interface ScriptedUsage {
  promptTokens: number;
  completionTokens: number;
}

/** A normal assistant message: text and/or tool calls. */
export interface ScriptedMessageReply {
  content?: string;
  toolCalls?: ScriptedToolCall[];
  usage?: ScriptedUsage;
  /** Default `"tool_calls"` when there are tool calls, else `"stop"`. */
  finishReason?: string;
  /** Wait this long before answering (to test client timeouts). */
  delayMs?: number;
}

/** An HTTP error answer, e.g. 429 or 500 to exercise retries. */
export interface ScriptedErrorReply {
  status: number;
  /** Message of the OpenAI-style error body. Default: `"scripted error <status>"`. */
  message?: string;
  headers?: Record<string, string>;
  delayMs?: number;
}

/** One scripted answer: plain text, a message, or an HTTP error. */
export type ScriptedReply = string | ScriptedMessageReply | ScriptedErrorReply;

/** A request the server received, as parsed JSON. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body (`undefined` for GET or an unparsable body). */
  // Chat request bodies are free-form JSON; callers inspect the fields they care about.
  body: any;
}

/** Builds a reply from a request; used when the queue is empty (or always, without a queue). */
export type ScriptedHandler = (request: RecordedRequest, index: number) => ScriptedReply | Promise<ScriptedReply>;

/** Options of {@link startScriptedOpenAIServer}. */
export interface ScriptedOpenAIServerOptions {
  /** Replies served in order, one per chat request. */
  replies?: ScriptedReply[];
  /** Answers requests once the queue is empty. Without it an empty queue answers HTTP 400. */
  handler?: ScriptedHandler;
  /** Model ids listed by `/v1/models`. Default `["scripted-model"]`. */
  models?: string[];
  /** Default 0 (a free port). */
  port?: number;
}

const SERVER_OPTION_RULES = {
  replies: rule("an array of scripted replies (strings, messages or HTTP errors)", Array.isArray),
  handler: functionRule("a function (request, index) => reply"),
  models: arrayRule(textRule({ what: "a model id" }), { what: "an array of model ids" }),
  port: integerRule({ min: 0, max: 65535, unit: "port number" }),
} satisfies OptionRules<ScriptedOpenAIServerOptions>;

/** A scripted reply's delay must be one a timer can wait for. */
function checkReplies(replies: readonly unknown[], option: string): void {
  replies.forEach((reply, i) => {
    if (typeof reply === "string") return;
    if (reply === null || typeof reply !== "object") throw new InvalidOptionError(`${option}[${i}]`, reply, "a string, { content?, toolCalls? } or { status }");
    const delayMs = (reply as { delayMs?: unknown }).delayMs;
    if (delayMs !== undefined && !(typeof delayMs === "number" && delayMs >= 0 && delayMs <= MAX_TIMER_MS)) {
      throw new InvalidOptionError(`${option}[${i}].delayMs`, delayMs, `a number of milliseconds from 0 to ${MAX_TIMER_MS} (timers cannot wait longer)`);
    }
  });
}

/** A running scripted server. */
export interface ScriptedOpenAIServer {
  /** e.g. `http://127.0.0.1:41234/v1` — pass as `configuration.baseURL` or `OPENAI_BASE_URL`. */
  readonly baseURL: string;
  readonly port: number;
  /** Every chat-completion request received, in order. */
  readonly requests: RecordedRequest[];
  /** Appends replies to the queue. */
  enqueue(...replies: ScriptedReply[]): void;
  /** Replies still queued. */
  readonly pending: number;
  /** Stops the server and closes open connections. */
  close(): Promise<void>;
}

/**
 * Starts a scripted OpenAI-compatible server on 127.0.0.1.
 *
 * @example
 * ```ts
 * const server = await startScriptedOpenAIServer({ replies: ["```js\nconsole.log(1)\n```"] });
 * const model = new ChatOpenAI({ model: "scripted-model", apiKey: "test", configuration: { baseURL: server.baseURL } });
 * const reply = await model.invoke("hi");
 * await server.close();
 * ```
 */
export async function startScriptedOpenAIServer(
  given: ScriptedOpenAIServerOptions = {},
): Promise<ScriptedOpenAIServer> {
  const options = checkOptions<ScriptedOpenAIServerOptions>(given, SERVER_OPTION_RULES, "startScriptedOpenAIServer");
  checkReplies(options.replies ?? [], "replies");
  const queue: ScriptedReply[] = [...(options.replies ?? [])];
  const requests: RecordedRequest[] = [];
  const models = options.models ?? ["scripted-model"];
  let completionCount = 0;

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendError(res, 500, `scripted server fault: ${String(error)}`);
      else res.end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? "/").split("?")[0];
    const raw = await readBody(req);
    if (req.method === "GET" && /\/models\/?$/.test(path)) {
      sendJson(res, 200, {
        object: "list",
        data: models.map((id) => ({ id, object: "model", created: 0, owned_by: "scripted" })),
      });
      return;
    }
    if (req.method !== "POST" || !/\/chat\/completions\/?$/.test(path)) {
      sendError(res, 404, `scripted server serves /v1/chat/completions and /v1/models, not ${req.method} ${path}`);
      return;
    }
    let body: unknown;
    try {
      body = raw.length > 0 ? JSON.parse(raw) : undefined;
    } catch {
      sendError(res, 400, "request body is not JSON");
      return;
    }
    const request: RecordedRequest = { method: req.method, path, headers: req.headers, body };
    requests.push(request);
    const index = completionCount++;
    let reply: ScriptedReply | undefined = queue.shift();
    if (reply === undefined && options.handler) reply = await options.handler(request, index);
    if (reply === undefined) {
      sendError(res, 400, `scripted server: no reply queued for chat request #${index + 1}; enqueue one or pass a handler`);
      return;
    }
    // A handler's reply is checked here (a queued one was checked when it was queued).
    if (typeof reply !== "string") checkReplies([reply], "handler reply");
    const delayMs = typeof reply === "string" ? 0 : (reply.delayMs ?? 0);
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (res.destroyed) return;
    if (typeof reply !== "string" && "status" in reply) {
      sendError(res, reply.status, reply.message ?? `scripted error ${reply.status}`, reply.headers);
      return;
    }
    const message: ScriptedMessageReply = typeof reply === "string" ? { content: reply } : reply;
    const chatBody = (body ?? {}) as { model?: string; stream?: boolean; stream_options?: { include_usage?: boolean } };
    const completion = buildCompletion(message, chatBody.model ?? models[0], index, promptText(body));
    if (chatBody.stream === true) {
      streamCompletion(res, completion, chatBody.stream_options?.include_usage === true);
    } else {
      sendJson(res, 200, completion.json);
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    enqueue(...replies: ScriptedReply[]) {
      checkReplies(replies, "replies");
      queue.push(...replies);
    },
    get pending() {
      return queue.length;
    },
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

interface BuiltCompletion {
  id: string;
  created: number;
  model: string;
  content: string | null;
  toolCalls: { id: string; name: string; arguments: string }[];
  finishReason: string;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  json: unknown;
}

function buildCompletion(message: ScriptedMessageReply, model: string, index: number, prompt: string): BuiltCompletion {
  const toolCalls = (message.toolCalls ?? []).map((call, i) => ({
    id: call.id ?? `call_${index + 1}_${i + 1}`,
    name: call.name,
    arguments: typeof call.args === "string" ? call.args : JSON.stringify(call.args ?? {}),
  }));
  const content = message.content ?? (toolCalls.length > 0 ? null : "");
  const completionText = (content ?? "") + toolCalls.map((c) => c.name + c.arguments).join("");
  const promptTokens = message.usage?.promptTokens ?? estimateTokens(prompt);
  const completionTokens = message.usage?.completionTokens ?? estimateTokens(completionText);
  const usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
  const finishReason = message.finishReason ?? (toolCalls.length > 0 ? "tool_calls" : "stop");
  const id = `chatcmpl-scripted-${index + 1}`;
  const created = Math.floor(Date.now() / 1000);
  const json = {
    id,
    object: "chat.completion",
    created,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content,
          ...(toolCalls.length > 0
            ? {
                tool_calls: toolCalls.map((c) => ({
                  id: c.id,
                  type: "function",
                  function: { name: c.name, arguments: c.arguments },
                })),
              }
            : {}),
        },
        logprobs: null,
        finish_reason: finishReason,
      },
    ],
    usage,
  };
  return { id, created, model, content, toolCalls, finishReason, usage, json };
}

function streamCompletion(res: ServerResponse, completion: BuiltCompletion, includeUsage: boolean): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  const base = { id: completion.id, object: "chat.completion.chunk", created: completion.created, model: completion.model };
  const send = (choices: unknown[], extra: Record<string, unknown> = {}) => {
    res.write(`data: ${JSON.stringify({ ...base, choices, ...extra })}\n\n`);
  };
  const usageField = includeUsage ? { usage: null } : {};
  send([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }], usageField);
  // Small pieces so clients see several content deltas, as with a real model.
  for (const piece of splitText(completion.content ?? "", 16)) {
    send([{ index: 0, delta: { content: piece }, finish_reason: null }], usageField);
  }
  completion.toolCalls.forEach((call, i) => {
    send(
      [{ index: 0, delta: { tool_calls: [{ index: i, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }, finish_reason: null }],
      usageField,
    );
    for (const piece of splitText(call.arguments, 16)) {
      send([{ index: 0, delta: { tool_calls: [{ index: i, function: { arguments: piece } }] }, finish_reason: null }], usageField);
    }
  });
  send([{ index: 0, delta: {}, finish_reason: completion.finishReason }], usageField);
  if (includeUsage) send([], { usage: completion.usage });
  res.end("data: [DONE]\n\n");
}

function splitText(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}

function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

function promptText(body: unknown): string {
  const messages = (body as { messages?: { content?: unknown }[] } | undefined)?.messages ?? [];
  return messages
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content ?? "")))
    .join("\n");
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

function sendError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  const type = status === 429 ? "rate_limit_exceeded" : status >= 500 ? "server_error" : "invalid_request_error";
  sendJson(res, status, { error: { message, type, param: null, code: type } }, headers);
}

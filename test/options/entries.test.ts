/**
 * The options table: every public entry that takes options, walked with an unknown key (a typo of
 * a known one), and each of its options with wrong types, NaN, ±Infinity, negatives, huge
 * numbers, empty strings, NUL bytes and lone surrogates. Each must be one InvalidOptionError that
 * names the option (and, for a typo, suggests the key it meant). The table's option lists are
 * checked against the entries' own lists of known keys, so a new option cannot be left out here.
 */
import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { MemorySaver } from "@langchain/langgraph";
import { InvalidOptionError, checkCode, createSandbox, disposeDefaultSandbox, runCode } from "../../src/index.js";
import { checkTypes, createCodeGenGraph, extractProgram } from "../../src/graph/index.js";
import { codeModeMiddleware, createCodeAgent, createCodeGenTool, createCodeInterpreterTool } from "../../src/tools/index.js";
import { CodeGeneratorSandbox, CodeGenerators, fromAsyncFunction, fromChatModel, fromOpenAICompatible, stripCodeFences } from "../../src/sdk/index.js";
import { graphSolver, loadTaskFile, parseTaskFile, runEvaluation } from "../../src/eval/index.js";
import { startScriptedOpenAIServer } from "../../src/testing/index.js";
import { createMcpServer, serveStdio, startMcpHttpServer } from "../../src/mcp/index.js";
import { CodeGenSandbox } from "../../src/deepagents/index.js";
import { fence, scriptedModel } from "../support/scripted-model.js";

/** What kind of value an option takes; each kind has its own bad values. */
type Kind =
  | "limit" // a positive limit with a ceiling (ms, bytes, counts)
  | "delay" // milliseconds a timer waits (fractions allowed)
  | "count" // a whole number with a floor of 0 or 1 and a ceiling
  | "text" // a non-empty string
  | "textOrEmpty" // a string that may be empty (no NUL, well-formed)
  | "code" // a string of code: only its type is checked (the engine answers the rest)
  | "language"
  | "choice" // one of a fixed set of strings
  | "boolean"
  | "function"
  | "object"
  | "array"
  | "signal"
  | "model" // a chat model instance or a "provider:model" string
  | "any"; // checked where it is used (kind not walked here)

/** Bad values of each kind, with a label for the test name. */
const BAD: Record<Kind, [string, unknown][]> = {
  limit: [["a string", "fast"], ["NaN", Number.NaN], ["Infinity", Number.POSITIVE_INFINITY], ["-Infinity", Number.NEGATIVE_INFINITY], ["a negative", -5], ["zero", 0], ["a huge number", 1e300], ["a fraction of a count", 0.5]],
  delay: [["a string", "1s"], ["NaN", Number.NaN], ["Infinity", Number.POSITIVE_INFINITY], ["-Infinity", Number.NEGATIVE_INFINITY], ["a negative", -5], ["past the timers", 2 ** 31], ["a huge number", 1e300]],
  count: [["a string", "2"], ["NaN", Number.NaN], ["-Infinity", Number.NEGATIVE_INFINITY], ["a negative", -5], ["a huge number", 1e300], ["a fraction", 1.5]],
  text: [["a number", 5], ["an empty string", ""], ["a NUL byte", "a\0b"], ["a lone surrogate", "a\ud800b"], ["an object", {}]],
  textOrEmpty: [["a number", 5], ["a NUL byte", "a\0b"], ["a lone surrogate", "a\udc00"]],
  code: [["a number", 5], ["an object", {}]],
  language: [["an unknown language", "ruby"], ["an empty string", ""], ["a number", 5], ["a NUL byte", "java\0script"]],
  choice: [["an unknown choice", "sometimes"], ["an empty string", ""], ["a number", 1]],
  boolean: [["a string", "yes"], ["a number", 1]],
  function: [["an object", {}], ["a string", "f"]],
  object: [["a number", 5], ["a string", "x"]],
  array: [["an object", {}], ["a string", "x"]],
  signal: [["a plain object", {}], ["a string", "abort"]],
  model: [["a number", 5], ["an empty string", ""], ["an object without invoke", {}], ["a NUL byte", "openai:\0"]],
  any: [],
};

/** One public entry: how to call it with options, and the kind of each option. */
interface Entry {
  name: string;
  call: (options: Record<string, unknown>) => unknown;
  options: Record<string, Kind>;
  /** A typo and the key it should suggest. */
  typo: [string, string];
  /** Put before each option's name in the message (nested options). */
  prefix?: string;
  /** Limits that take Infinity for "no limit". */
  infinityOk?: string[];
}

const model = () => scriptedModel(fence("javascript", "console.log(1)"));
const generator = fromAsyncFunction(async () => "function f() { return 1; }");
const sandbox = createSandbox({ poolSize: 1 });
const graph = createCodeGenGraph({ model: model() });
const tempDir = new URL(".", import.meta.url).pathname;
let session: Awaited<ReturnType<typeof sandbox.createSession>> | undefined;
const liveSession = async () => (session ??= await sandbox.createSession({ language: "javascript" }));

let mcp: ReturnType<typeof createMcpServer> | undefined;
const mcpServer = () => (mcp ??= createMcpServer({ sandbox }));

afterAll(async () => {
  await mcp?.close();
  await session?.dispose();
  await sandbox.dispose();
  await disposeDefaultSandbox();
});

const RUN: Record<string, Kind> = {
  language: "language",
  timeoutMs: "limit",
  memoryLimitBytes: "limit",
  maxOutputBytes: "limit",
  globals: "object",
  hostFunctions: "object",
  maxHostCallsInFlight: "limit",
  maxHostCalls: "limit",
  maxResultBytes: "limit",
  signal: "signal",
  tests: "code",
  files: "object",
  maxFileBytes: "limit",
  maxTotalFileBytes: "limit",
  filesAtRoot: "boolean",
  inputs: "object",
};
const { language: _l, ...SESSION_RUN } = RUN;
const { globals: _g, ...SESSION_CALL } = SESSION_RUN;

const GRAPH: Record<string, Kind> = {
  model: "model",
  maxRetries: "count",
  defaultLanguage: "language",
  sandbox: "object",
  prompts: "object",
  approveBeforeExecute: "boolean",
  timeoutMs: "limit",
  memoryLimitBytes: "limit",
  maxOutputBytes: "limit",
  modelRetry: "object",
  repair: "object",
  env: "object",
  checkpointer: "object",
  tools: "array",
};
const CONTEXT: Record<string, Kind> = { model: "text", maxRetries: "count", defaultLanguage: "language", timeoutMs: "limit", memoryLimitBytes: "limit", maxOutputBytes: "limit" };
const INTERPRETER: Record<string, Kind> = {
  languages: "array",
  images: "choice",
  sandbox: "object",
  timeoutMs: "limit",
  memoryLimitBytes: "limit",
  maxOutputBytes: "limit",
  globals: "object",
  hostFunctions: "object",
  tools: "array",
  persistence: "choice",
  files: "object",
  backend: "any",
  fileContents: "choice",
  maxFileBytes: "limit",
  maxThreadFilesBytes: "limit",
  maxThreadFiles: "limit",
  maxHostResultBytes: "limit",
  maxCellRecordBytes: "limit",
  maxHostCalls: "limit",
  maxHostCallsInFlight: "limit",
  maxSessions: "limit",
  snapshots: "object",
  maxContentChars: "limit",
  name: "text",
  description: "text",
};
const { checkpointer: _c, approveBeforeExecute: _a, ...GRAPH_FOR_TOOL } = GRAPH;
const { description: _d, ...MIDDLEWARE } = INTERPRETER;
const SDK: Record<string, Kind> = {
  generator: "object",
  globalSettings: "object",
  globalParameters: "object",
  globalState: "object",
  template: "any",
  language: "language",
  sandbox: "object",
  useDefaultDescriptors: "boolean",
  maxRetries: "count",
  limits: "object",
};
const RETRY: Record<string, Kind> = { maxRetries: "count", initialDelayMs: "delay", maxDelayMs: "delay", sleep: "function", onRetry: "function", baseURL: "text" };

const ENTRIES: Entry[] = [
  { name: "runCode", call: (o) => runCode("1", o), options: RUN, typo: ["timeout", "timeoutMs"], infinityOk: ["maxHostCalls"] },
  { name: "sandbox.run", call: (o) => sandbox.run("1", o), options: RUN, typo: ["memoryLimit", "memoryLimitBytes"], infinityOk: ["maxHostCalls"] },
  { name: "checkCode", call: (o) => checkCode("1", o), options: { language: "language" }, typo: ["lang", "language"] },
  { name: "createSandbox", call: (o) => createSandbox(o), options: { poolSize: "count", defaults: "object", isolation: "choice", python: "object" }, typo: ["pool", "poolSize"] },
  {
    name: "createSandbox defaults",
    call: (o) => createSandbox({ defaults: o }),
    prefix: "defaults.",
    options: (({ globals: _x, hostFunctions: _y, ...rest }) => rest)(RUN),
    typo: ["timeoutms", "timeoutMs"],
    infinityOk: ["maxHostCalls"],
  },
  { name: "sandbox.createSession", call: (o) => sandbox.createSession(o), options: { language: "language", memoryLimitBytes: "limit", snapshottable: "boolean" }, typo: ["languages", "language"] },
  { name: "session.run", call: async (o) => (await liveSession()).run("1", o), options: { ...SESSION_RUN, language: "language", memoryLimitBytes: "limit" }, typo: ["test", "tests"], infinityOk: ["maxHostCalls"] },
  { name: "session.call", call: async (o) => (await liveSession()).call("f", [], o), options: { ...SESSION_CALL, language: "language", memoryLimitBytes: "limit" }, typo: ["signl", "signal"], infinityOk: ["maxHostCalls"] },
  { name: "createCodeGenGraph", call: (o) => createCodeGenGraph(o), options: GRAPH, typo: ["maxRetry", "maxRetries"] },
  { name: "createCodeGenGraph modelRetry", call: (o) => createCodeGenGraph({ modelRetry: o }), prefix: "modelRetry.", options: RETRY, typo: ["retries", "maxRetries"] },
  {
    name: "createCodeGenGraph repair",
    call: (o) => createCodeGenGraph({ repair: o }),
    prefix: "repair.",
    options: { temperatures: "array", samples: "count", prompt: "choice", explainFirst: "boolean" },
    typo: ["sample", "samples"],
  },
  { name: "createCodeGenGraph prompts", call: (o) => createCodeGenGraph({ prompts: o }), prefix: "prompts.", options: { system: "object", task: "text", refine: "text" }, typo: ["refinement", "refine"] },
  { name: "graph.invoke context", call: (o) => graph.invoke({ task: "Print 1" }, { context: o as never }), prefix: "context.", options: CONTEXT, typo: ["timeout", "timeoutMs"] },
  {
    name: "graph.invoke input",
    call: (o) => graph.invoke({ task: "Print 1", ...o }),
    options: { task: "text", language: "language", details: "textOrEmpty", tests: "code", expectedOutput: "code" },
    typo: ["test", "tests"],
  },
  { name: "createCodeInterpreterTool", call: (o) => createCodeInterpreterTool(o), options: INTERPRETER, typo: ["timeout", "timeoutMs"], infinityOk: ["maxHostCalls"] },
  { name: "codeModeMiddleware", call: (o) => codeModeMiddleware(o), options: MIDDLEWARE, typo: ["tool", "tools"], infinityOk: ["maxHostCalls"] },
  {
    name: "createCodeGenTool",
    call: (o) => createCodeGenTool({ model: model(), ...o }),
    options: { ...GRAPH_FOR_TOOL, graph: "object", languages: "array", defaultLanguage: "language", maxContentChars: "limit", name: "text", description: "text", inheritRunSettings: "boolean" },
    typo: ["inheritSettings", "inheritRunSettings"],
  },
  { name: "createCodeAgent", call: (o) => createCodeAgent(o), options: { model: "model", tools: "array", systemPrompt: "text", checkpointer: "object", name: "text", env: "object" }, typo: ["prompt", "systemPrompt"] },
  { name: "CodeGeneratorSandbox", call: (o) => new CodeGeneratorSandbox({ generator, ...o } as never), options: SDK, typo: ["maxRetry", "maxRetries"] },
  { name: "CodeGeneratorSandbox limits", call: (o) => new CodeGeneratorSandbox({ generator, limits: o }), prefix: "limits.", options: { timeoutMs: "limit", memoryLimitBytes: "limit", maxOutputBytes: "limit" }, typo: ["timeout", "timeoutMs"] },
  { name: "CodeGenerators", call: (o) => new CodeGenerators(o), options: { globalSettings: "object", globalParameters: "object", globalState: "object", sandbox: "object", language: "language" }, typo: ["globalSetting", "globalSettings"] },
  {
    name: "CodeGenerators.register",
    call: (o) => new CodeGenerators().register("g", generator, o),
    options: { language: "language", useDefaultDescriptors: "boolean", maxRetries: "count", limits: "object", template: "any" },
    typo: ["retries", "maxRetries"],
  },
  { name: "fromAsyncFunction", call: (o) => fromAsyncFunction(async () => "", o), options: { checker: "function", modelRetry: "object", name: "text", stripFences: "boolean" }, typo: ["stripFence", "stripFences"] },
  { name: "fromChatModel", call: (o) => fromChatModel(model(), o), options: { checker: "function", modelRetry: "object", systemPrompt: "text" }, typo: ["system", "systemPrompt"] },
  {
    name: "fromOpenAICompatible",
    call: (o) => fromOpenAICompatible({ baseURL: "http://127.0.0.1:9/v1", model: "m", ...o }),
    options: { checker: "function", modelRetry: "object", systemPrompt: "text", baseURL: "text", model: "text", apiKey: "text", requestTimeoutMs: "delay" },
    typo: ["timeoutMs", "requestTimeoutMs"],
  },
  {
    name: "runEvaluation",
    call: (o) => runEvaluation({ tasks: [], solve: async () => ({ passed: true, attempts: [] }), ...o }),
    options: { tasks: "array", solve: "function", model: "text", maxRetries: "count", seed: "count", shownTests: "count", repair: "object", concurrency: "count", onResult: "function", isFatal: "function", signal: "signal", sandboxTime: "function" },
    typo: ["solver", "solve"],
  },
  { name: "parseTaskFile", call: (o) => parseTaskFile("", o), options: { format: "choice", file: "text" }, typo: ["formats", "format"] },
  { name: "loadTaskFile", call: (o) => loadTaskFile(`${tempDir}entries.test.ts`, o), options: { format: "choice" }, typo: ["fromat", "format"] },
  { name: "extractProgram", call: (o) => extractProgram("```js\nconsole.log(1)\n```", "javascript", o), options: { tests: "textOrEmpty", requiredNames: "array" }, typo: ["test", "tests"] },
  { name: "checkTypes", call: (o) => checkTypes("const a = 1;", o), options: { hostFunctions: "object", globals: "object", files: "any", declarations: "textOrEmpty", maxDiagnostics: "count" }, typo: ["declaration", "declarations"] },
  {
    name: "createMcpServer",
    call: (o) => createMcpServer(o),
    options: { sandbox: "object", timeoutMs: "limit", memoryLimitBytes: "limit", maxOutputBytes: "limit", maxFileBytes: "limit", maxTotalFileBytes: "limit", maxSessions: "limit", sessionIdleMs: "limit", maxConcurrentRuns: "limit", maxContentChars: "limit", model: "model", env: "object", python: "object" },
    typo: ["maxSession", "maxSessions"],
  },
  {
    name: "startMcpHttpServer",
    call: (o) => startMcpHttpServer(mcpServer(), o),
    options: { host: "text", port: "count", token: "any", allowRemote: "boolean", allowedOrigins: "array", maxConnections: "limit", connectionIdleMs: "limit", maxSockets: "limit", unauthenticatedTimeoutMs: "limit" },
    typo: ["allowOrigins", "allowedOrigins"],
  },
  { name: "serveStdio", call: (o) => serveStdio(mcpServer(), o), options: { input: "object", output: "object", maxMessageBytes: "limit" }, typo: ["maxMessageSize", "maxMessageBytes"] },
  {
    name: "CodeGenSandbox.create (deepagents)",
    call: (o) => CodeGenSandbox.create(o),
    options: { initialFiles: "object", timeoutMs: "limit", memoryLimitBytes: "limit", shellMemoryLimitBytes: "limit", maxOutputBytes: "limit", maxFileBytes: "limit", maxTotalFileBytes: "limit", maxFiles: "limit", env: "object", sandbox: "object" },
    typo: ["maxFile", "maxFiles"],
  },
  { name: "startScriptedOpenAIServer", call: (o) => startScriptedOpenAIServer(o), options: { replies: "array", handler: "function", models: "array", port: "count" }, typo: ["reply", "replies"] },
];

/** Calls `fn` and returns what it threw (sync or as a rejection), or undefined. */
async function thrown(fn: () => unknown): Promise<unknown> {
  try {
    const value = fn();
    if (value instanceof Promise) await value;
  } catch (error) {
    return error;
  }
  return undefined;
}

/** What the message must say about `value` after "got". */
function shown(value: unknown): string | undefined {
  if (typeof value === "number") return `got ${Object.is(value, -0) ? "-0" : String(value)}`;
  if (typeof value === "string") return `got ${JSON.stringify(value)}`;
  return undefined;
}

/** The package entries this table walks; a new entry in package.json must join it. */
const COVERED_ENTRIES = [".", "./graph", "./tools", "./sdk", "./eval", "./testing", "./mcp", "./deepagents"];

it("covers every entry point of the package", () => {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { exports: Record<string, unknown> };
  expect(Object.keys(pkg.exports).filter((entry) => entry !== "./package.json").sort()).toEqual([...COVERED_ENTRIES].sort());
});

describe("every public entry refuses unknown keys and bad values with one InvalidOptionError naming the option", { timeout: 60_000 }, () => {
  it.each(ENTRIES.map((e) => [e.name, e] as const))("%s: its known keys are the table's (nothing forgotten)", async (_name, entry) => {
    const error = await thrown(() => entry.call({ zzzNotAnOption: 1 }));
    expect(error).toBeInstanceOf(InvalidOptionError);
    const e = error as InvalidOptionError;
    expect(e.option).toBe(`${entry.prefix ?? ""}zzzNotAnOption`);
    expect(e.message).toContain("has no option of this name");
    const known = e.expected.replace(/^one of /, "").split(", ").map((k) => k.slice((entry.prefix ?? "").length));
    expect(known.sort()).toEqual(Object.keys(entry.options).sort());
  });

  it.each(ENTRIES.map((e) => [e.name, e.typo[0], e.typo[1], e] as const))("%s: a typo %s suggests %s", async (_name, typo, meant, entry) => {
    const error = (await thrown(() => entry.call({ [typo]: 1 }))) as InvalidOptionError;
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect(error.suggestion).toBe(`${entry.prefix ?? ""}${meant}`);
    expect(error.message).toContain(`did you mean "${entry.prefix ?? ""}${meant}"?`);
  });

  const cases = ENTRIES.flatMap((entry) =>
    Object.entries(entry.options).flatMap(([option, kind]) =>
      BAD[kind]
        .filter(([label]) => !(label === "Infinity" && entry.infinityOk?.includes(option)))
        .filter(([label]) => !(label === "a fraction of a count" && option === "timeoutMs"))
        .map(([label, value]) => [`${entry.name}: ${option} = ${label}`, entry, option, value] as const),
    ),
  );
  it("walks hundreds of cases", () => expect(cases.length).toBeGreaterThan(350));

  it.each(cases)("%s", async (_title, entry, option, value) => {
    const error = await thrown(() => entry.call({ [option]: value }));
    expect(error, "must throw").toBeInstanceOf(InvalidOptionError);
    const e = error as InvalidOptionError;
    const name = `${entry.prefix ?? ""}${option}`;
    // The option named is the one given, or one of its parts (`globals.x`, `languages[0]`).
    expect(e.option === name || e.option.startsWith(`${name}.`) || e.option.startsWith(`${name}[`), `${e.option} names ${name}`).toBe(true);
    expect(e.message).toMatch(new RegExp(`^Invalid option "${e.option.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}": `));
    const got = shown(value);
    if (got !== undefined && e.option === name) expect(e.message).toContain(got);
    expect(e.message).not.toMatch(/got null/);
  });
});

describe("positional arguments and values inside options", () => {
  it.each([
    ["runCode(5)", () => runCode(5 as never), "code"],
    ["checkTypes(123)", () => checkTypes(123 as never), "code"],
    ["parseTaskFile(5)", () => parseTaskFile(5 as never), "text"],
    ['extractProgram(reply, "ruby")', () => extractProgram("```ruby\nputs 1\n```", "ruby" as never), "language"],
    ['stripCodeFences(reply, "ruby")', () => stripCodeFences("x", "ruby" as never), "language"],
    ["extractProgram(5)", () => extractProgram(5 as never, "javascript"), "reply"],
    ["runEvaluation without solve", () => runEvaluation({ tasks: [] } as never), "solve"],
    ["runEvaluation(undefined)", () => runEvaluation(undefined as never), "options"],
    ["graphSolver({})", () => graphSolver({} as never), "graph"],
    ["loadTaskFile of a directory", () => loadTaskFile(tempDir), "path"],
    ["graph.invoke({ task, tests: 5 })", () => graph.invoke({ task: "Print 1", tests: 5 as never }), "tests"],
    ["graph.invoke without task", () => graph.invoke({ language: "python" } as never), "task"],
    ["graph.invoke({ task, context: \"...\" }) (the input's field is details)", () => graph.invoke({ task: "Print 1", context: "xs is a list" } as never), "context"],
    ["graph.invoke context timeoutMs fast", () => graph.invoke({ task: "x" }, { context: { timeoutMs: "fast" } as never }), "context.timeoutMs"],
    ["graph.invoke configurable maxRetries 50", () => graph.invoke({ task: "x" }, { configurable: { maxRetries: 50 } }), "configurable.maxRetries"],
    ["globals: { console: 1 }", () => runCode("1", { globals: { console: 1 } }), "globals.console"],
    ["globals: { JSON: {} }", () => runCode("1", { globals: { JSON: {} } }), "globals.JSON"],
    ["Python globals: { print: 1 }", () => runCode("1", { language: "python", globals: { print: 1 } }), "globals.print"],
    ["hostFunctions: { console }", () => runCode("1", { hostFunctions: { console: () => 1 } }), "hostFunctions.console"],
    ["a global and a host function of one name", () => runCode("1", { globals: { f: 1 }, hostFunctions: { f: () => 1 } }), "hostFunctions.f"],
    ["a file path with a NUL byte", () => runCode("1", { files: { "a\0b": "x" } }), "files.a\0b"],
    ["a file path with a lone surrogate", () => runCode("1", { files: { "a\ud800": "x" } }), "files.a\ud800"],
    ["globals with NaN inside", () => runCode("1", { globals: { x: [Number.NaN] } }), "globals.x[0]"],
    ["session.run language of another session", async () => (await liveSession()).run("1", { language: "python" } as never), "language"],
    ["warm(5)", () => sandbox.warm(5 as never), "languages"],
    ["a tool name with spaces", () => createCodeInterpreterTool({ name: "run code" }), "name"],
    ["a checkpointer that is not one", () => createCodeGenGraph({ checkpointer: {} as never }), "checkpointer"],
    ["a scripted reply delay past the timers", () => startScriptedOpenAIServer({ replies: [{ content: "x", delayMs: 2 ** 31 }] }), "replies[0].delayMs"],
    ["CODEGEN_MODEL_TIMEOUT_MS of 1e12", () => createCodeGenGraph({ env: { CODEGEN_MODEL_TIMEOUT_MS: "1e12", OPENAI_API_KEY: "k" } }).invoke({ task: "x" }), "CODEGEN_MODEL_TIMEOUT_MS"],
  ])("%s", async (_title, call, option) => {
    const error = await thrown(call);
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect((error as InvalidOptionError).option).toBe(option);
  });

  it("renders NaN, Infinity, NUL bytes and lone surrogates as themselves", async () => {
    const messages = await Promise.all(
      [{ timeoutMs: Number.NaN }, { timeoutMs: Number.NEGATIVE_INFINITY }, { language: "a\0" }, { language: "\ud800" }].map(async (o) => ((await thrown(() => runCode("1", o as never))) as Error).message),
    );
    expect(messages[0]).toContain("got NaN;");
    expect(messages[1]).toContain("got -Infinity;");
    expect(messages[2]).toContain('got "a\\u0000";');
    expect(messages[3]).toContain('got "\\ud800";');
  });

  it("keeps a made-up key visible and the message one line and bounded (a newline, a NUL byte, 100 kB)", async () => {
    const odd = (await thrown(() => runCode("1", { "time\nout\0": 1 } as never))) as InvalidOptionError;
    expect(odd.option).toBe("time\nout\0");
    expect(odd.message).toMatch(/^Invalid option "time\\u000aout\\u0000": sandbox\.run \(and runCode\) has no option of this name; did you mean "timeoutMs"\?/);
    expect(odd.message).not.toContain("\n");
    const long = (await thrown(() => runCode("1", { ["k".repeat(100_000)]: 1 } as never))) as InvalidOptionError;
    expect(long.message.length).toBeLessThan(1000);
  });

  it("answers code with NUL bytes and lone surrogates with a result, never a throw (code is data)", async () => {
    expect((await runCode("'a\0b'.length")).result).toBe(3);
    expect((await runCode("'a\ud800'.length")).result).toBe(2);
    expect((await runCode("1\0")).status).toBe("syntax_error");
  });

  it("refuses a string `context` in the graph's input with one error naming `details` (nothing dropped)", async () => {
    const error = (await thrown(() => graph.invoke({ task: "Print 1", context: "xs is a list" } as never))) as InvalidOptionError;
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect(error.suggestion).toBe("details");
    expect(error.message).toMatch(/^Invalid option "context": got "xs is a list"; did you mean "details"\? Expected a string of extra information for the model in the input's "details"/);
  });

  it("keeps the graph's input fields as they were (a valid input runs)", async () => {
    const g = createCodeGenGraph({ model: model(), checkpointer: new MemorySaver() });
    const state = await g.invoke({ task: "Print 1", details: "", expectedOutput: "1" }, { configurable: { thread_id: "ok" }, context: { maxRetries: 0 } as never });
    expect(state.status).toBe("success");
  });
});

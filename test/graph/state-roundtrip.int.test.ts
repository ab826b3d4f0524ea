/**
 * What the guest produced survives a checkpointer unchanged: LangChain's serializer revives
 * `{lc: 1, type: "constructor"}` objects, drops `{lc: 2, type: "undefined"}` and can turn a
 * `__proto__` key into a prototype, so the graph stores the program's value as JSON text.
 * Round trip through MemorySaver and PostgresSaver (a throwaway PostgreSQL cluster).
 */
import { afterAll, describe, expect, it } from "vitest";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { MemorySaver, type BaseCheckpointSaver } from "@langchain/langgraph";
import { createCodeGenGraph, runResultValue } from "../../src/graph/index.js";
import { createSandbox } from "../../src/sandbox/index.js";
import type { JsonValue } from "../../src/sandbox/types.js";
import { usePostgresSaver } from "../support/postgres-saver.js";

const sandbox = createSandbox({ poolSize: 1 });

/**
 * Programs whose result (last expression) a reviving serializer would change, and the value each
 * must keep. Each builds its value (a block that is only a literal is printed output to the
 * extractor, not a program).
 */
const PAYLOADS: { name: string; code: string; value: JsonValue }[] = [
  {
    name: "a LangChain constructor object",
    code: 'const marker = { lc: 1, type: "constructor", id: ["langchain_core", "messages", "HumanMessage"], kwargs: { content: "from the guest" } };\nmarker',
    value: { lc: 1, type: "constructor", id: ["langchain_core", "messages", "HumanMessage"], kwargs: { content: "from the guest" } },
  },
  {
    name: "a __proto__ key",
    code: 'JSON.parse(\'{"__proto__": {"polluted": true}, "a": 1}\')',
    value: JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as JsonValue,
  },
  { name: "an lc undefined marker", code: 'const marker = { lc: 2, type: "undefined" };\nmarker', value: { lc: 2, type: "undefined" } },
  { name: "a nested marker in a list", code: 'const list = [1, { lc: 2, type: "undefined" }, "x"];\nlist', value: [1, { lc: 2, type: "undefined" }, "x"] },
];

async function roundTrip(checkpointer: BaseCheckpointSaver, threadPrefix: string) {
  for (const payload of PAYLOADS) {
    const graph = createCodeGenGraph({ model: new FakeListChatModel({ responses: ["```js\n" + payload.code + "\n```"] }), sandbox, checkpointer });
    const config = { configurable: { thread_id: `${threadPrefix}-${payload.name}` } };
    const final = await graph.invoke({ task: `Return ${payload.name}` }, config);
    expect(final.status, payload.name).toBe("success");
    // Read back from the checkpointer, not from memory.
    const stored = (await graph.getState(config)).values as typeof final;
    for (const state of [final, stored]) {
      const value = runResultValue(state.result);
      expect(value, payload.name).toEqual(payload.value);
      expect(typeof state.result?.resultJson, payload.name).toBe("string");
      if (payload.name === "a __proto__ key") {
        expect(Object.hasOwn(value as object, "__proto__")).toBe(true);
        expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
        expect((value as { polluted?: unknown }).polluted).toBeUndefined();
      }
    }
  }
}

afterAll(async () => {
  await sandbox.dispose();
});

describe("guest results survive checkpointers", () => {
  it("MemorySaver", async () => {
    await roundTrip(new MemorySaver(), "memory");
  });

  describe("PostgresSaver", () => {
    const pg = usePostgresSaver();

    it("round-trips every payload through PostgreSQL", async () => {
      await roundTrip(pg.get(), "pg");
    }, 60_000);
  });
});

import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPostgres, type PostgresCluster } from "./postgres.js";

describe("the throwaway PostgreSQL cluster", () => {
  let pg: PostgresCluster;
  beforeAll(async () => {
    pg = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await pg?.stop();
  });

  it("serves a checkpointer that sets up its tables and stores a checkpoint", async () => {
    const saver = PostgresSaver.fromConnString(pg.url);
    await saver.setup();
    const config = { configurable: { thread_id: "t1", checkpoint_ns: "" } };
    const checkpoint = { v: 4, id: "00000000-0000-0000-0000-000000000001", ts: new Date().toISOString(), channel_values: { x: 1 }, channel_versions: { x: 1 }, versions_seen: {} };
    await saver.put(config, checkpoint as never, { source: "input", step: -1, parents: {} } as never, { x: 1 });
    const back = await saver.getTuple({ configurable: { thread_id: "t1", checkpoint_ns: "" } });
    expect(back?.checkpoint.id).toBe(checkpoint.id);
    await saver.end();
  });
});

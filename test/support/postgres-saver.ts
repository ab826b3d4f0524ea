/**
 * A PostgresSaver on a throwaway cluster for the tests of one file or `describe` block: started
 * (tables set up) before its tests, ended and stopped after them.
 */
import { afterAll, beforeAll } from "vitest";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { startPostgres, type PostgresCluster } from "./postgres.js";

/**
 * Registers the saver's lifecycle in the current scope; `get()` gives it inside tests.
 *
 * @example
 * const pg = usePostgresSaver();
 * it("stores", async () => { await graph.compile({ checkpointer: pg.get() }); });
 */
export function usePostgresSaver(setupTimeoutMs = 60_000): { get(): PostgresSaver } {
  let cluster: PostgresCluster | undefined;
  let saver: PostgresSaver | undefined;
  beforeAll(async () => {
    cluster = await startPostgres();
    saver = PostgresSaver.fromConnString(cluster.url);
    await saver.setup();
  }, setupTimeoutMs);
  afterAll(async () => {
    await saver?.end();
    await cluster?.stop();
  });
  return {
    get() {
      if (!saver) throw new Error("usePostgresSaver: the saver is only ready inside tests");
      return saver;
    },
  };
}

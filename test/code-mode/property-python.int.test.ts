/**
 * Property test of exact state, Python (see property-support.ts): seeded random cell programs
 * run live and restored must answer alike; batched into a few threads, so few interpreters
 * start. Set CODE_MODE_PROPERTY_SEED to replay a failing seed.
 */
import { afterAll, describe, it } from "vitest";
import { check, pyProgram, pyQuery, sandbox, SEED, SEQUENCES } from "./property-support.js";

afterAll(() => sandbox.dispose());

describe(`seeded random cell programs, live and restored (seed ${SEED})`, { timeout: 600_000 }, () => {
  it(`Python: ${SEQUENCES} sequences`, async () => {
    await check("python", 4, SEQUENCES / 4, pyProgram, pyQuery, "import random, time, os, uuid, datetime, asyncio");
  });
});

/**
 * Property test of exact state, JavaScript and TypeScript (see property-support.ts): seeded
 * random cell programs run live and restored must answer alike. Set CODE_MODE_PROPERTY_SEED to
 * replay a failing seed.
 */
import { afterAll, describe, it } from "vitest";
import { check, jsProgram, jsQuery, sandbox, SEED, SEQUENCES } from "./property-support.js";

afterAll(() => sandbox.dispose());

describe(`seeded random cell programs, live and restored (seed ${SEED})`, { timeout: 600_000 }, () => {
  it(`JavaScript: ${SEQUENCES} sequences`, async () => {
    await check("javascript", 20, SEQUENCES / 20, (g, p) => jsProgram(g, p, false), jsQuery);
  });
  it(`TypeScript: ${SEQUENCES / 4} sequences (enum and typed declarations)`, async () => {
    await check("typescript", 5, SEQUENCES / 20, (g, p) => jsProgram(g, p, true), jsQuery);
  });
});

import { defineConfig } from "vitest/config";
import { builtWorkers } from "../../test/support/built-workers.js";
import { walkPlugin } from "./instrument.js";

/** `npx vitest run --config bench/walk/walk.config.ts`: the walk of one code-mode call (walk.ts). */
export default defineConfig({
  plugins: [builtWorkers(), walkPlugin()],
  test: { include: ["bench/walk/*.walk.ts"], testTimeout: 60_000, pool: "forks" },
});

import { defineConfig } from "vitest/config";
import { builtWorkers } from "./test/support/built-workers.js";

/**
 * Two projects so the slow suites can run alone: `npm run test:unit` (in-process, offline) and
 * `npm run test:int` (child processes and external runtimes: the Studio server, the installed
 * package, the examples, the CLI, Python in Deno, PostgreSQL, the docs samples). `npm test` runs both.
 * A new slow suite joins `int` by living in one of these folders or by ending in `.int.test.ts`.
 */
const integration = [
  "test/studio/**/*.test.ts",
  "test/package/**/*.test.ts",
  "test/examples/**/*.test.ts",
  "test/docs/**/*.test.ts",
  "test/cli/**/*.test.ts",
  "test/eval/eval-cli.test.ts",
  "test/eval/reference-solutions.test.ts",
  "test/sandbox/python/**/*.test.ts",
  "test/**/*python*.test.ts",
  "test/**/*postgres*.test.ts",
  "test/**/*.int.test.ts",
];

export default defineConfig({
  // The modules that start workers find them in dist/ (test/support/built-workers.ts says how).
  plugins: [builtWorkers()],
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    projects: [
      { extends: true, test: { name: "unit", include: ["test/**/*.test.ts"], exclude: integration } },
      { extends: true, test: { name: "int", include: integration } },
    ],
  },
});

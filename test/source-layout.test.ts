/** The shape of `src/`: no import cycles (type imports count), and CLI commands share code only through shared modules. */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { importCycles, importGraph } from "./support/import-graph.js";

const graph = importGraph(fileURLToPath(new URL("../src/", import.meta.url)));

describe("source layout", () => {
  it("reads the module graph (the reader is not blind)", () => {
    expect(graph.get("cli/main.ts")).toEqual(expect.arrayContaining(["cli/solve.ts", "cli/exec.ts"]));
    expect(graph.size).toBeGreaterThan(50);
  });

  it("has no import cycles", () => {
    expect(importCycles(graph).map((cycle) => cycle.join(" -> "))).toEqual([]);
  });

  it("CLI subcommands import neither main.ts nor each other", () => {
    const commands = ["cli/solve.ts", "cli/demo.ts", "cli/exec.ts", "cli/eval.ts", "cli/mcp.ts"];
    for (const command of commands) {
      const imports = graph.get(command) ?? [];
      expect(imports.filter((target) => target === "cli/main.ts" || commands.includes(target)), command).toEqual([]);
    }
  });
});

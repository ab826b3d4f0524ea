/**
 * `npm run bench [-- SECTION...]`: runs benchmark sections and prints one table.
 * Sections register below (name -> lazy loader); with no argument every section runs.
 * Speed goals live here, never as timed assertions in tests.
 */
import { renderTable, type BenchRow, type BenchSection } from "./table.js";

const sections: Record<string, () => Promise<BenchSection>> = {
  // name: async () => (await import("./section.js")).default,
  js: async () => (await import("./js.js")).default,
  // The pristine image's rows of the js section alone.
  "js-fresh": async () => (await import("./js.js")).freshImageSection,
  graph: async () => (await import("./graph.js")).default,
  python: async () => (await import("./python.js")).default,
  entry: async () => (await import("./entry.js")).default,
  typecheck: async () => (await import("./typecheck.js")).default,
  "code-mode": async () => (await import("./code-mode.js")).default,
  "tool-results": async () => (await import("./tool-results.js")).default,
  replies: async () => (await import("./replies.js")).default,
  deepagents: async () => (await import("./deepagents.js")).default,
  mcp: async () => (await import("./mcp.js")).default,
};

async function main(): Promise<void> {
  const asked = process.argv.slice(2).filter((a) => !a.startsWith("--"));
  const json = process.argv.includes("--json");
  const names = asked.length > 0 ? asked : Object.keys(sections);
  const rows: BenchRow[] = [];
  for (const name of names) {
    const load = sections[name];
    if (!load) {
      process.stderr.write(`bench: unknown section "${name}"; known: ${Object.keys(sections).join(", ")}\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`bench: running ${name}...\n`);
    const section = await load();
    rows.push(...(await section()));
  }
  process.stdout.write((json ? JSON.stringify(rows, null, 2) : renderTable(rows)) + "\n");
}

await main();

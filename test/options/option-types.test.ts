/**
 * One option name, one type, across the package's entries: every exported options type (a name
 * ending in `Options`, plus the graph's input) of every entry in package.json's "exports" is read
 * with the TypeScript compiler, and a property name that has two types fails the test unless it
 * is allow-listed here with its reason.
 */
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** Property names whose types differ across entries on purpose, each with its reason. */
const DIFFER_ON_PURPOSE: Record<string, string> = {
  hostFunctions: "the graph's type check (TypeCheckOptions, SandboxDeclarationsOptions) declares the host functions a run will have: their names, or the run's own record",
  files: "the graph's type check declares whether a run has `files` (true, or the run's own record) where a run takes the files themselves",
  python: "MCP's server takes a subset of createSandbox's `python` (packages and packageIndex; no wheels from the server's disk)",
  model: "a ModelSpec (an instance or \"provider:model\") where the entry builds the model; a model's name where it is sent to an OpenAI-compatible server (SDK) or recorded in a report (eval)",
  tools: "each entry takes the tools its runtime calls: graph tools for the generated program, code mode's tools (or names of the agent's own), LangChain tools for createCodeAgent",
  env: "where model settings are read from (process.env's shape, values may be undefined) vs the environment variables deepagents' shell programs see (every value set)",
};

/** The source of each public entry: `./dist/src/X/index.d.ts` in "exports" is `src/X/index.ts`. */
function entrySources(): Map<string, string> {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { exports: Record<string, { import?: { types?: string } }> };
  const entries = new Map<string, string>();
  for (const [entry, target] of Object.entries(pkg.exports)) {
    const types = target.import?.types;
    if (types === undefined) continue;
    entries.set(entry, join(root, types.replace(/^\.\/dist\//, "").replace(/\.d\.ts$/, ".ts")));
  }
  return entries;
}

/** Whether an export is an options type the test compares. */
function isOptionsType(name: string): boolean {
  return name.endsWith("Options") || name === "CodeGenInput";
}

/** A type as text, with `| undefined` of an optional property left out and imports spelled out (two types of one name stay apart). */
function typeText(checker: ts.TypeChecker, property: ts.Symbol, at: ts.Node): string {
  const type = checker.getNonNullableType(checker.getTypeOfSymbolAtLocation(property, at));
  const text = checker.typeToString(type, undefined, ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseFullyQualifiedType | ts.TypeFormatFlags.InTypeAlias);
  // `import("/abs/path/src/x", { with: ... }).Name` → `src/x.Name`: short, and still one per declaration.
  return text.replace(/import\("([^"]+)"(?:, \{[^)]*\})?\)\./g, (_m, path: string) => `${path.startsWith(root) ? path.slice(root.length + 1) : path}.`);
}

/** Property name → type text → the options types ("entry Name") that give the property that type. */
function collectOptionTypes(sources: Map<string, string>): Map<string, Map<string, string[]>> {
  const config = ts.getParsedCommandLineOfConfigFile(join(root, "tsconfig.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  const program = ts.createProgram([...sources.values()], { ...config!.options, noEmit: true });
  const checker = program.getTypeChecker();
  const found = new Map<string, Map<string, string[]>>();
  for (const [entry, file] of sources) {
    const source = program.getSourceFile(file);
    const module = source && checker.getSymbolAtLocation(source);
    if (module === undefined) throw new Error(`could not read the entry ${entry} (${file})`);
    for (const exported of checker.getExportsOfModule(module)) {
      if (!isOptionsType(exported.name)) continue;
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      if (!(symbol.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias))) continue;
      const declaration = symbol.declarations?.[0];
      if (declaration === undefined) continue;
      const type = checker.getDeclaredTypeOfSymbol(symbol);
      for (const property of checker.getPropertiesOfType(type)) {
        const text = typeText(checker, property, declaration);
        const byType = found.get(property.name) ?? new Map<string, string[]>();
        const owners = byType.get(text) ?? [];
        const owner = `${entry} ${exported.name}`;
        if (!owners.includes(owner)) owners.push(owner);
        byType.set(text, owners);
        found.set(property.name, byType);
      }
    }
  }
  return found;
}

/** The property names with more than one type, as one readable line each. */
function mismatches(found: Map<string, Map<string, string[]>>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, byType] of found) {
    if (byType.size < 2) continue;
    out.set(name, [...byType].map(([type, owners]) => `${type} (${owners.join(", ")})`).join("  vs  "));
  }
  return out;
}

describe("exported option names have one type across entries", () => {
  const found = collectOptionTypes(entrySources());
  const differing = mismatches(found);

  it("reads the options of every entry (the graph's input, the sandbox's, the SDK's, MCP's, deepagents')", () => {
    for (const name of ["task", "sandbox", "maxRetries", "timeoutMs", "details", "snapshottable", "generator", "initialFiles"]) {
      expect(found.has(name), name).toBe(true);
    }
    expect([...found.get("sandbox")!.values()].flat().length).toBeGreaterThanOrEqual(5);
  });

  it("gives each property name one type, or a reason it differs", () => {
    const unexplained = [...differing].filter(([name]) => DIFFER_ON_PURPOSE[name] === undefined).map(([name, line]) => `${name}: ${line}`);
    expect(unexplained, `option names with two types across entries (make them one, or allow-list with a reason):\n${unexplained.join("\n")}`).toEqual([]);
  });

  it("keeps no stale allow-list entry (each one still differs, and says why)", () => {
    const stale = Object.keys(DIFFER_ON_PURPOSE).filter((name) => !differing.has(name));
    expect(stale, "allow-listed names that no longer differ").toEqual([]);
    for (const [name, reason] of Object.entries(DIFFER_ON_PURPOSE)) expect(reason.length, name).toBeGreaterThan(20);
  });
});

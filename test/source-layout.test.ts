/**
 * The shape of `src/`: no import cycles (type imports count), one direction between top-level
 * folders, folders that say on which side of a boundary their code runs, `errors.ts` at the
 * bottom, and one declaration per public name.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { MODULES_STARTING_WORKERS } from "./support/built-workers.js";
import { importCycles, importGraph } from "./support/import-graph.js";

const srcDir = fileURLToPath(new URL("../src/", import.meta.url));
const graph = importGraph(srcDir);
const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { exports: Record<string, unknown> };

/** The top-level folder of a module (`graph/nodes/x.ts` → `graph`; `errors.ts` → `errors.ts`). */
const topOf = (module: string) => module.split("/")[0]!;

/** Every import from a module under `from` to a module under `to` (prefixes of paths in src/). */
function importsBetween(from: string, to: string): string[] {
  const found: string[] = [];
  for (const [module, targets] of graph) {
    if (!module.startsWith(from)) continue;
    for (const target of targets) if (target.startsWith(to)) found.push(`${module} -> ${target}`);
  }
  return found;
}

describe("source layout", () => {
  it("reads the module graph (the reader is not blind)", () => {
    expect(graph.get("cli/main.ts")).toEqual(expect.arrayContaining(["cli/solve.ts", "cli/exec.ts"]));
    expect(graph.size).toBeGreaterThan(50);
  });

  it("has no import cycles", () => {
    expect(importCycles(graph).map((cycle) => cycle.join(" -> "))).toEqual([]);
  });

  it("has no two top-level folders that import each other (one direction per folder)", () => {
    const folders = new Map<string, Set<string>>();
    for (const [module, targets] of graph) {
      for (const target of targets) {
        const from = topOf(module);
        const to = topOf(target);
        if (from === to) continue;
        if (!folders.has(from)) folders.set(from, new Set());
        folders.get(from)!.add(to);
      }
    }
    const both = [...folders].flatMap(([from, tos]) => [...tos].filter((to) => from < to && folders.get(to)?.has(from)).map((to) => `${from} <-> ${to}`));
    expect(both).toEqual([]);
    // Folder-level cycles of any length too: the folders form a layered house.
    expect(importCycles(new Map([...folders].map(([from, tos]) => [from, [...tos]]))).map((c) => c.join(" -> "))).toEqual([]);
  });

  it("keeps errors.ts at the bottom: it imports nothing of ours", () => {
    expect(graph.get("errors.ts")).toEqual([]);
  });

  it("keeps code mode's engine below its LangChain wrappers: code-mode/ never imports tools/", () => {
    expect(importsBetween("code-mode/", "tools/")).toEqual([]);
  });

  it("keeps code mode in one wing: tools/ reaches it only through its entry, code-mode/ has no loose file but the entry", () => {
    const edges = importsBetween("tools/", "code-mode/");
    expect(edges.length, "the reader is not blind").toBeGreaterThan(0);
    expect(edges.filter((edge) => !edge.endsWith(" -> code-mode/index.ts"))).toEqual([]);
    const loose = [...graph.keys()].filter((m) => m.startsWith("code-mode/") && m.split("/").length === 2 && m !== "code-mode/index.ts");
    expect(loose, "every file of code-mode/ sits in call/, thread/, replay/ or tools/").toEqual([]);
  });

  it("lets the graph know code mode only through the interface it owns (graph/code-tools.ts, code mode's entry)", () => {
    expect(importsBetween("graph/", "code-mode/")).toEqual(["graph/code-tools.ts -> code-mode/index.ts"]);
    expect(importsBetween("code-mode/", "graph/")).toEqual([]);
  });

  it("keeps graph/'s insides to graph/: other folders import its public entry or its shared entries", () => {
    const entries = ["graph/index.ts", "graph/shared.ts", "graph/shared-nodes.ts"];
    const inward = [...graph].flatMap(([module, targets]) => (module.startsWith("graph/") ? [] : targets.filter((t) => t.startsWith("graph/")).map((t) => `${module} -> ${t}`)));
    expect(inward.length, "the reader is not blind").toBeGreaterThan(0);
    expect(inward.filter((edge) => !entries.some((entry) => edge.endsWith(` -> ${entry}`)))).toEqual([]);
  });

  it("has one repair loop, the graph's: the SDK and MCP's solve run the compiled graph, and only graph/ writes repair prompts", () => {
    expect(graph.get("sdk/graph-generation.ts")).toContain("graph/index.ts");
    expect(graph.get("mcp/solve-tool.ts")).toContain("graph/index.ts");
    const repairPrompt = [...graph].filter(([module, targets]) => targets.includes("feedback/repair-prompt.ts") && !module.startsWith("graph/")).map(([module]) => module);
    expect(repairPrompt).toEqual([]);
  });

  it("keeps graph/shared.ts free of LangChain, so the CLI, the SDK and MCP load it before any peer check", () => {
    const reached = runtimeClosure(["graph/shared.ts", "sdk/index.ts", "mcp/index.ts"]);
    expect(reached.has("graph/extract-code.ts"), "the reader is not blind").toBe(true);
    const langchain = [...reached].filter((module) => runtimePackages(module).some((name) => name === "langchain" || name.startsWith("@langchain/")));
    expect(langchain).toEqual([]);
  });

  it("places every JavaScript-engine module by the thread it runs on", () => {
    const js = "sandbox/js/";
    // host/: the Node host thread; worker/: inside the QuickJS worker thread; prepare/: pure
    // source preparation (both sides call it); shared/: what crosses the thread boundary.
    expect(importsBetween(`${js}host/`, `${js}worker/`)).toEqual([]);
    expect(importsBetween(`${js}worker/`, `${js}host/`)).toEqual([]);
    for (const side of ["host/", "worker/"]) expect(importsBetween(`${js}prepare/`, `${js}${side}`)).toEqual([]);
    for (const side of ["host/", "worker/", "prepare/"]) expect(importsBetween(`${js}shared/`, `${js}${side}`)).toEqual([]);
    const loose = [...graph.keys()].filter((m) => m.startsWith(js) && m.split("/").length === 3);
    expect(loose, "every file of sandbox/js/ sits in host/, worker/, prepare/ or shared/").toEqual([]);
  });

  it("places every Python-engine module by the process it runs in", () => {
    const py = "sandbox/python/";
    // host/: the Node host; deno/: inside the Deno process; shared/: what both sides check.
    expect(importsBetween(`${py}host/`, `${py}deno/`)).toEqual([]);
    expect(importsBetween(`${py}deno/`, `${py}host/`)).toEqual([]);
    for (const side of ["host/", "deno/"]) expect(importsBetween(`${py}shared/`, `${py}${side}`)).toEqual([]);
    // Deno may read only the runner's folder and shared/ (its --allow-read): no other module of ours.
    const outside = importsBetween(`${py}deno/`, "").filter((edge) => {
      const target = edge.split(" -> ")[1]!;
      return !target.startsWith(`${py}deno/`) && !target.startsWith(`${py}shared/`) && target !== "sandbox/types.ts";
    });
    expect(outside).toEqual([]);
    const loose = [...graph.keys()].filter((m) => m.startsWith(py) && m.split("/").length === 3);
    expect(loose, "every file of sandbox/python/ sits in host/, deno/ or shared/").toEqual([]);
  });

  it("places every deepagents-backend module by the thread it runs on", () => {
    const da = "deepagents/";
    // worker/: inside the shell's worker thread; it may use only worker/ and what crosses the
    // boundary (protocol.ts, shell-commands.ts). The host side never imports worker/.
    const crossing = [`${da}protocol.ts`, `${da}shell-commands.ts`];
    expect(importsBetween(`${da}worker/`, "").filter((edge) => {
      const target = edge.split(" -> ")[1]!;
      return !target.startsWith(`${da}worker/`) && !crossing.includes(target);
    })).toEqual([]);
    expect(importsBetween(`${da}worker/`, `${da}worker/`).length, "the reader is not blind").toBeGreaterThan(0);
    const host = [...graph.keys()].filter((m) => m.startsWith(da) && !m.startsWith(`${da}worker/`) && !m.startsWith(`${da}checker/`));
    expect(host.flatMap((m) => (graph.get(m) ?? []).filter((t) => t.startsWith(`${da}worker/`)).map((t) => `${m} -> ${t}`))).toEqual([]);
    // checker/: inside the type checker's thread; it uses only checker/ and the checker
    // (typecheck/). The host side imports only its protocol.
    expect(importsBetween(`${da}checker/`, "").filter((edge) => !/ -> (deepagents\/checker\/|typecheck\/)/.test(edge))).toEqual([]);
    expect(host.flatMap((m) => (graph.get(m) ?? []).filter((t) => t.startsWith(`${da}checker/`) && t !== `${da}checker/protocol.ts`).map((t) => `${m} -> ${t}`))).toEqual([]);
  });

  it("CLI subcommands import neither main.ts nor each other", () => {
    // Shared CLI plumbing lives in args.ts, command.ts, usage-error.ts and graph-run.ts.
    const shared = ["cli/args.ts", "cli/command.ts", "cli/usage-error.ts", "cli/graph-run.ts"];
    const commands = graph.get("cli/main.ts")!.filter((m) => m.startsWith("cli/") && !shared.includes(m));
    expect(commands).toEqual(expect.arrayContaining(["cli/solve.ts", "cli/demo.ts", "cli/exec.ts", "cli/eval.ts"]));
    for (const command of commands) {
      const imports = graph.get(command) ?? [];
      expect(imports.filter((target) => target === "cli/main.ts" || commands.includes(target)), command).toEqual([]);
    }
  });

  it("keeps the tests' way to built workers out of runtime code (test/support/built-workers.ts maps them)", () => {
    const starters = [...graph.keys()].filter((module) => /new Worker\(|runnerDirectory\(\)/.test(readFileSync(path.join(srcDir, module), "utf8")));
    // Every module that starts a worker from its built copy's neighbourhood is in the plugin's list.
    expect(starters.filter((m) => !m.includes("/worker/") && !m.includes("/deno/")).map((m) => `src/${m}`).sort()).toEqual([...MODULES_STARTING_WORKERS].sort());
    for (const module of graph.keys()) {
      const text = readFileSync(path.join(srcDir, module), "utf8");
      expect(text, module).not.toMatch(/endsWith\(["']\.ts["']\)|["'/]dist\/src\/|"dist", "src"/);
    }
  });

  it("declares every name an entry point exports in one file only (one name, one meaning)", () => {
    const declarations = exportedDeclarations();
    expect(declarations.get("runCode"), "the reader is not blind").toEqual(["sandbox/run-code.ts"]);
    const entries = Object.values(pkg.exports)
      .map((target) => (typeof target === "object" && target !== null ? (target as { import?: string | { default?: string } }).import : undefined))
      .map((condition) => (typeof condition === "object" ? condition.default : condition))
      .filter((path): path is string => typeof path === "string" && path.startsWith("./dist/src/"))
      // `entry.js` (the peer check written by scripts/peer-entries.mjs) re-exports its folder's index.
      .map((path) => path.replace("./dist/src/", "").replace(/\/entry\.js$/, "/index.js").replace(/\.js$/, ".ts"));
    expect(entries).toEqual(expect.arrayContaining(["index.ts", "graph/index.ts", "tools/index.ts"]));
    const twice: string[] = [];
    for (const entry of entries) {
      for (const name of entryExports(entry)) {
        const files = declarations.get(name) ?? [];
        if (files.length > 1) twice.push(`${entry}: ${name} is declared in ${files.join(", ")}`);
      }
    }
    expect(twice).toEqual([]);
  });
});

function parse(module: string): ts.SourceFile {
  return ts.createSourceFile(module, readFileSync(srcDir + module, "utf8"), ts.ScriptTarget.Latest, false);
}

/** The names an entry module re-exports (`export { a, b as c } from`, own exported declarations). */
function entryExports(entry: string): string[] {
  const names: string[] = [];
  for (const statement of parse(entry).statements) {
    if (ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause)) {
      for (const element of statement.exportClause.elements) names.push((element.propertyName ?? element.name).text);
    }
  }
  return names;
}

/** Name → files of src/ that declare an exported binding of that name. */
function exportedDeclarations(): Map<string, string[]> {
  const byName = new Map<string, string[]>();
  const add = (name: string, module: string) => {
    const files = byName.get(name) ?? [];
    if (!files.includes(module)) files.push(module);
    byName.set(name, files);
  };
  for (const module of graph.keys()) {
    for (const statement of parse(module).statements) {
      const exported = ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
      if (!exported) continue;
      if (ts.isVariableStatement(statement)) {
        for (const declaration of statement.declarationList.declarations) if (ts.isIdentifier(declaration.name)) add(declaration.name.text, module);
      } else if (
        (ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement) || ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement) || ts.isEnumDeclaration(statement)) &&
        statement.name
      ) {
        add(statement.name.text, module);
      }
    }
  }
  return byName;
}

/** The specifiers a module imports or re-exports at run time (type-only ones left out). */
function runtimeSpecifiers(module: string): string[] {
  const found: string[] = [];
  for (const statement of parse(module).statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      const typeOnly = clause !== undefined && (clause.isTypeOnly || (!clause.name && clause.namedBindings !== undefined && ts.isNamedImports(clause.namedBindings) && clause.namedBindings.elements.length > 0 && clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      if (!typeOnly) found.push((statement.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && !statement.isTypeOnly) {
      const named = statement.exportClause && ts.isNamedExports(statement.exportClause) ? statement.exportClause.elements : undefined;
      if (!named || named.length === 0 || !named.every((e) => e.isTypeOnly)) found.push((statement.moduleSpecifier as ts.StringLiteral).text);
    }
  }
  return found;
}

/** The packages (not our modules) a module imports at run time. */
function runtimePackages(module: string): string[] {
  return runtimeSpecifiers(module).filter((specifier) => !specifier.startsWith("."));
}

/** Every module of src/ that loading `roots` evaluates (static imports; type-only ones erased). */
function runtimeClosure(roots: string[]): Set<string> {
  const seen = new Set<string>();
  const visit = (module: string) => {
    if (seen.has(module)) return;
    seen.add(module);
    for (const specifier of runtimeSpecifiers(module)) {
      if (!specifier.startsWith(".")) continue;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(module), specifier)).replace(/\.js$/, ".ts");
      if (graph.has(target)) visit(target);
    }
  };
  for (const root of roots) visit(root);
  return seen;
}

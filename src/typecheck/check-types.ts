/**
 * A real type check of generated TypeScript with the TypeScript compiler, before it runs.
 *
 * The compiler is imported lazily (nothing loads `typescript` until the first check) and kept
 * warm: one LanguageService per process whose library files are parsed once and reused, so a
 * check re-parses only the program and the sandbox's declarations when they change.
 *
 * Compiler settings: the library of what the sandbox's QuickJS provides (engine-lib.ts: ES2023
 * and the ES2024/ES2025 built-ins it has), without the DOM, `strict` except `noImplicitAny` (models
 * often leave parameters unannotated, and that runs fine) and `useUnknownInCatchVariables`
 * (`catch (e) { e.message }` is common and harmless here). Top-level `await` is allowed, as
 * the sandbox allows it. Messages never advise changing a compiler option (engine-advice.ts):
 * the model cannot set one.
 */
import type * as TS from "typescript";

/** The compiler's API object (what `import("typescript")` gives as its default export). */
type Compiler = typeof import("typescript");
import { sandboxDeclarations, type SandboxDeclarationsOptions } from "./declarations.js";
import { withSandboxAdvice } from "./engine-advice.js";
import { ENGINE_LIB_FILES } from "./engine-lib.js";
import { InvalidOptionError } from "../errors.js";
import { checkOptions, integerRule, rule, textRule, type OptionRules } from "../options/index.js";
import type { TypeCheckResult, TypeDiagnostic } from "./types.js";

/** Options of `checkTypes`: what the program is given, and how many errors to report. */
export interface TypeCheckOptions extends SandboxDeclarationsOptions {
  /** Errors reported at most. Default 10. */
  maxDiagnostics?: number;
}

const isIdentifier = (name: string) => /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name);

/** The options of `checkTypes` and their rules (keys from the interface itself). */
const TYPE_CHECK_RULES = {
  hostFunctions: rule("an array of host function names, or an object mapping names to TypeScript function types", (v) =>
    Array.isArray(v) ? v.every((n) => typeof n === "string" && isIdentifier(n)) : typeof v === "object" && v !== null && Object.keys(v).every(isIdentifier)),
  globals: rule("an object mapping names to JSON values", (v) => typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).every(isIdentifier)),
  files: rule("true, false or the run's files", (v) => typeof v === "boolean" || (typeof v === "object" && v !== null && !Array.isArray(v))),
  declarations: textRule({ what: "TypeScript declarations", allowEmpty: true }),
  maxDiagnostics: integerRule({ min: 1, max: 1000, unit: "errors" }),
} satisfies OptionRules<TypeCheckOptions>;

const PROGRAM_FILE = "/codegen-sandbox/program.ts";
const DECLARATIONS_FILE = "/codegen-sandbox/sandbox-globals.d.ts";

// Top-level await in a file TypeScript sees as a script: the sandbox runs such code as a module.
const IGNORED_CODES = new Set([1375, 1378, 1431, 1432]);

let checker: Promise<WarmChecker> | undefined;

/**
 * Type-checks `code` as TypeScript for the sandbox: its globals, the `files` API (with
 * `files`), host functions and extra `declarations` are declared to the compiler. Returns the
 * errors with 1-based line and column in `code`. Never throws for errors in `code`.
 *
 * @example
 * ```ts
 * const result = await checkTypes('const n: number = "one";');
 * // { ok: false, diagnostics: [{ line: 1, column: 7, code: 2322, message: "Type 'string' is not assignable to type 'number'." }], durationMs: ... }
 * ```
 */
export async function checkTypes(code: string, given: TypeCheckOptions = {}): Promise<TypeCheckResult> {
  if (typeof code !== "string") throw new InvalidOptionError("code", code, "a string of TypeScript source");
  const options = checkOptions<TypeCheckOptions>(given, TYPE_CHECK_RULES, "checkTypes");
  checker ??= import("typescript").then((module) => new WarmChecker(module.default));
  const warm = await checker;
  return warm.check(code, sandboxDeclarations(options), options.maxDiagnostics ?? 10);
}

class WarmChecker {
  private readonly files = new Map<string, { text: string; version: number }>();
  private readonly libSnapshots = new Map<string, TS.IScriptSnapshot | undefined>();
  private readonly service: TS.LanguageService;

  constructor(private readonly ts: Compiler) {
    const options: TS.CompilerOptions = {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      lib: [...ENGINE_LIB_FILES],
      strict: true,
      noImplicitAny: false,
      useUnknownInCatchVariables: false,
      noEmit: true,
      skipLibCheck: true,
      types: [],
      allowJs: false,
    };
    this.files.set(PROGRAM_FILE, { text: "", version: 0 });
    this.files.set(DECLARATIONS_FILE, { text: "", version: 0 });
    // The checked code is a guest's: `import "/etc/x"`, `typeof import("/home/me/config")` and
    // `/// <reference path>` name host paths, and a compiler host that asked the disk would
    // tell the guest which exist and what a TypeScript file there declares. The disk is read
    // only for TypeScript's own library files; every other path does not exist.
    const libDir = ts.getDefaultLibFilePath(options).replace(/[^/\\]+$/, "");
    const isLibFile = (name: string): boolean => name.startsWith(libDir) && /^lib\.[\w.-]+\.d\.ts$/.test(name.slice(libDir.length));
    const host: TS.LanguageServiceHost = {
      getScriptFileNames: () => [DECLARATIONS_FILE, PROGRAM_FILE],
      getScriptVersion: (name) => String(this.files.get(name)?.version ?? 0),
      getScriptSnapshot: (name) => {
        const own = this.files.get(name);
        if (own !== undefined) return ts.ScriptSnapshot.fromString(own.text);
        if (!isLibFile(name)) return undefined;
        if (!this.libSnapshots.has(name)) {
          const text = ts.sys.readFile(name);
          this.libSnapshots.set(name, text === undefined ? undefined : ts.ScriptSnapshot.fromString(text));
        }
        return this.libSnapshots.get(name);
      },
      getCurrentDirectory: () => "/codegen-sandbox",
      getCompilationSettings: () => options,
      getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
      fileExists: (name) => this.files.has(name) || (isLibFile(name) && ts.sys.fileExists(name)),
      readFile: (name) => this.files.get(name)?.text ?? (isLibFile(name) ? ts.sys.readFile(name) : undefined),
    };
    this.service = ts.createLanguageService(host, ts.createDocumentRegistry());
  }

  check(code: string, declarations: string, maxDiagnostics: number): TypeCheckResult {
    const startedAt = performance.now();
    this.update(PROGRAM_FILE, code);
    this.update(DECLARATIONS_FILE, declarations);
    const found = [...this.service.getSyntacticDiagnostics(PROGRAM_FILE), ...this.service.getSemanticDiagnostics(PROGRAM_FILE)];
    const diagnostics: TypeDiagnostic[] = [];
    for (const d of found) {
      if (IGNORED_CODES.has(d.code) || d.category !== this.ts.DiagnosticCategory.Error) continue;
      const position = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : { line: 0, character: 0 };
      diagnostics.push({
        line: position.line + 1,
        column: position.character + 1,
        code: d.code,
        message: withSandboxAdvice(d.code, this.ts.flattenDiagnosticMessageText(d.messageText, " ")),
      });
      if (diagnostics.length >= maxDiagnostics) break;
    }
    const durationMs = Math.round((performance.now() - startedAt) * 100) / 100;
    return diagnostics.length === 0 ? { ok: true, durationMs } : { ok: false, diagnostics, durationMs };
  }

  private update(name: string, text: string): void {
    const entry = this.files.get(name)!;
    if (entry.text === text) return;
    this.files.set(name, { text, version: entry.version + 1 });
  }
}

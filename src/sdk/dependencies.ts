/**
 * The dependency manifest of generated code: the modules it imports, each marked available or
 * not in the sandbox (asked of the sandbox's own import check, so the answer matches what a
 * run would do).
 */
import type { CheckResult, Language } from "../sandbox/types.js";

/** One imported module. */
export interface Dependency {
  /** Top-level module name (`numpy` for `numpy.linalg`, `lodash` for `lodash/fp`). */
  name: string;
  /** Whether the sandbox lets code import it. */
  available: boolean;
  /** Why not, when not available (from the sandbox's check). */
  reason?: string;
}

/** The manifest written as `dependencies.json`. */
export interface DependencyManifest {
  language: Language;
  dependencies: Dependency[];
}

/**
 * Names of the modules `code` imports, top-level, without duplicates, in order of appearance.
 * Handles `import ... from`, bare `import`, `export ... from`, `import()` and `require()` for
 * JavaScript/TypeScript, and `import a, b` / `from a import b` for Python (relative imports are
 * skipped).
 *
 * @example
 * ```ts
 * extractImports("import numpy as np\nfrom os.path import join", "python"); // ["numpy", "os"]
 * ```
 */
export function extractImports(code: string, language: Language): string[] {
  const names: string[] = [];
  const add = (name: string) => {
    if (name && !names.includes(name)) names.push(name);
  };
  if (language === "python") {
    for (const match of code.matchAll(/^[ \t]*import[ \t]+([\w., \t]+)/gm)) {
      for (const part of match[1]!.split(",")) add(part.trim().split(/\s+/)[0]!.split(".")[0]!);
    }
    for (const match of code.matchAll(/^[ \t]*from[ \t]+([\w.]+)[ \t]+import\b/gm)) {
      if (!match[1]!.startsWith(".")) add(match[1]!.split(".")[0]!);
    }
    return names;
  }
  const specifiers = [
    /\bimport\s+(?:type\s+)?[\w$*{}\s,]+?\s+from\s*["']([^"']+)["']/g,
    /\bimport\s*["']([^"']+)["']/g,
    /\bexport\s+[\w$*{}\s,]+?\s+from\s*["']([^"']+)["']/g,
    /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
    /\brequire\s*\(\s*["']([^"']+)["']\s*\)/g,
  ];
  const found: { index: number; name: string }[] = [];
  for (const pattern of specifiers) {
    for (const match of code.matchAll(pattern)) found.push({ index: match.index!, name: packageName(match[1]!) });
  }
  for (const { name } of found.sort((a, b) => a.index - b.index)) add(name);
  return names;
}

function packageName(specifier: string): string {
  if (specifier.startsWith(".") || specifier.startsWith("/")) return specifier;
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

/**
 * Builds the manifest of `code`: each import checked with `check` on a one-line program that
 * imports only that module.
 *
 * @example
 * ```ts
 * await buildDependencyManifest("import math", "python", (code, o) => sandbox.check(code, o));
 * // { language: "python", dependencies: [{ name: "math", available: true }] }
 * ```
 */
export async function buildDependencyManifest(
  code: string,
  language: Language,
  check: (code: string, options: { language: Language }) => Promise<CheckResult>,
): Promise<DependencyManifest> {
  const dependencies = await Promise.all(
    extractImports(code, language).map(async (name): Promise<Dependency> => {
      const probe = language === "python" ? `import ${name}\n` : `import ${JSON.stringify(name)};\n`;
      const outcome = await check(probe, { language });
      return outcome.ok ? { name, available: true } : { name, available: false, reason: outcome.error.message };
    }),
  );
  return { language, dependencies };
}

/**
 * `requirements.txt` for Python code: the imports the sandbox does not provide. Import names
 * are written as they appear; the pip package may be named differently (`sklearn` is
 * `scikit-learn`).
 *
 * @example
 * ```ts
 * requirementsText({ language: "python", dependencies: [{ name: "numpy", available: false }] }); // "# ...\nnumpy\n"
 * ```
 */
export function requirementsText(manifest: DependencyManifest): string {
  const missing = manifest.dependencies.filter((d) => !d.available).map((d) => d.name);
  return `# Imports of main.py that the sandbox does not provide (import names; pip names may differ).\n${missing.map((n) => `${n}\n`).join("")}`;
}

/**
 * What `npm pack` puts in the tarball (from the built `dist/`): every file `exports` and `bin`
 * name, in both formats; the LICENSE; and every relative link of the shipped Markdown (README,
 * docs/) points at a file that is shipped too, so the docs read the same in node_modules.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  exports: Record<string, unknown>;
  bin: Record<string, string>;
};

/** Every file path a condition object (nested) names. */
function targets(conditions: unknown): string[] {
  if (typeof conditions === "string") return [conditions];
  if (typeof conditions !== "object" || conditions === null) return [];
  return Object.values(conditions).flatMap(targets);
}

const strip = (path: string) => normalize(path.replace(/^\.\//, ""));

describe("the tarball's contents", () => {
  let files: Set<string>;

  beforeAll(() => {
    const packed = JSON.parse(execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: root, encoding: "utf8" })) as Array<{
      files: Array<{ path: string }>;
    }>;
    files = new Set(packed[0]!.files.map((file) => file.path));
  }, 60_000);

  it("has every entry point in both formats, with types for each", () => {
    for (const [subpath, conditions] of Object.entries(manifest.exports)) {
      if (subpath === "./package.json") continue;
      // A new entry needs both conditions (the CommonJS build reads them from here).
      expect(Object.keys(conditions as object), `exports["${subpath}"]`).toEqual(["require", "import"]);
      expect(targets(conditions).map((target) => target.replace(/^.*\./, "."))).toEqual([".cts", ".cjs", ".ts", ".js"]);
      for (const target of targets(conditions)) expect(files.has(strip(target)), `${subpath} -> ${target}`).toBe(true);
    }
    for (const bin of Object.values(manifest.bin)) expect(files.has(strip(bin)), bin).toBe(true);
    expect(files.has("LICENSE")).toBe(true);
  });

  it("builds its command as an executable file (npx in a fresh clone runs it directly: 'Permission denied' before)", () => {
    for (const bin of Object.values(manifest.bin)) {
      const mode = statSync(join(root, bin)).mode;
      expect(mode & 0o111, `${bin} mode ${mode.toString(8)}`).not.toBe(0);
      expect(readFileSync(join(root, bin), "utf8").startsWith("#!/usr/bin/env node\n"), bin).toBe(true);
    }
  });

  it("ships every file its Markdown links to", () => {
    const broken: string[] = [];
    for (const doc of [...files].filter((file) => file.endsWith(".md"))) {
      const text = readFileSync(join(root, doc), "utf8");
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target!) || target!.startsWith("#")) continue;
        const path = normalize(join(dirname(doc), target!.split("#")[0]!));
        if (!files.has(path)) broken.push(`${doc} -> ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});

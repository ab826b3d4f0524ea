import { describe, expect, it } from "vitest";
import { stripCodeFences } from "../../src/sdk/strip-fences.js";
import { DEFAULT_TEMPLATE, findEvalClass, resolveTemplate, templateText } from "../../src/sdk/templates.js";
import { defaultDescriptors, mergeDescriptors } from "../../src/sdk/descriptors.js";
import { buildDependencyManifest, extractImports, requirementsText } from "../../src/sdk/dependencies.js";
import { defaultPreProcessor } from "../../src/sdk/generator-api.js";
import { InvalidOptionError } from "../../src/errors.js";

describe("stripCodeFences", () => {
  it("keeps the code of a fenced reply and drops the prose", () => {
    expect(stripCodeFences("Sure:\n```javascript\nfunction add(a, b) {\n  return a + b;\n}\n```\nDone.")).toBe(
      "function add(a, b) {\n  return a + b;\n}",
    );
  });
  it("is the package's one extractor: blocks joined when one uses what another defines; plain code left alone", () => {
    expect(stripCodeFences("```py\nx = 1\n```\nthen\n```py\nprint(x)\n```", "python")).toBe("x = 1\n\nprint(x)");
    expect(stripCodeFences("```py\nx = 1\nprint(x)\n```\nor\n```py\nx = 2\nprint(x)\n```", "python")).toBe("x = 2\nprint(x)");
    expect(stripCodeFences("```bash\nnode main.js\n```\n```js\nconsole.log(1);\n```")).toBe("console.log(1);");
    expect(stripCodeFences("  const a = 1;\n")).toBe("const a = 1;");
    // No program: the reply comes back trimmed, so the caller's check can say what is wrong.
    expect(stripCodeFences(" Sorry, I cannot do that. ")).toBe("Sorry, I cannot do that.");
  });
  it("handles an unclosed fence", () => {
    expect(stripCodeFences("```js\nconst a = 1;")).toBe("const a = 1;");
  });
});

describe("templates", () => {
  it("finds the class that has eval, in JavaScript and Python", () => {
    expect(findEvalClass("class A { run() {} }\nclass Rule {\n  eval(p, i, c) { return 1; }\n}")).toBe("Rule");
    expect(findEvalClass("class Policy:\n    def eval(self, p, i, c):\n        return 1\n")).toBe("Policy");
    expect(findEvalClass("class MyGeneratedPolicy:\n    def run(self, config, input_data):\n        pass\n")).toBeUndefined();
  });
  it("resolves strings and objects, rejects junk with a clear error", () => {
    expect(resolveTemplate(undefined)).toBe(DEFAULT_TEMPLATE);
    expect(resolveTemplate("class R { eval(p, i, c) { return p; } }").evalClassName).toBe("R");
    expect(resolveTemplate("function main() {}").evalClassName).toBeUndefined();
    expect(() => resolveTemplate(42 as never)).toThrow(InvalidOptionError);
    expect(() => resolveTemplate({ name: "x", text: { python: 3 } } as never)).toThrow(/Invalid option "template"/);
  });
  it("gives per-language text and falls back from TypeScript to JavaScript", () => {
    expect(templateText(DEFAULT_TEMPLATE, "python")).toContain("def eval(self, parameters, input_data, context)");
    expect(templateText({ name: "js", text: { javascript: "class A {}" } }, "typescript")).toBe("class A {}");
    expect(templateText({ name: "js", text: { javascript: "class A {}" } }, "python")).toBeUndefined();
  });
});

describe("descriptors", () => {
  it("merges over the defaults unless turned off", () => {
    const defaults = defaultDescriptors("javascript", DEFAULT_TEMPLATE);
    expect(defaults.language).toBe("javascript");
    expect(defaults.template).toContain("class GeneratedPolicy");
    const merged = mergeDescriptors(defaults, { style: "concise", extra: "yes" }, true);
    expect(merged.style).toBe("concise");
    expect(merged.language).toBe("javascript");
    expect(mergeDescriptors(defaults, { style: "concise" }, false)).toEqual({ style: "concise" });
    expect(() => mergeDescriptors(defaults, { n: 1 } as never, true)).toThrow(/Invalid option "descriptors"/);
  });
  it("the default pre-processor appends key: value pairs", () => {
    expect(defaultPreProcessor("Create a class Calculator", { style: "concise", include_tests: "yes" })).toBe(
      "Create a class Calculator style: concise include_tests: yes",
    );
  });
});

describe("dependencies", () => {
  it("extracts JavaScript and TypeScript imports", () => {
    const code = [
      'import fs from "node:fs";',
      'import { chunk } from "lodash/fp";',
      'import type { X } from "@scope/pkg/sub";',
      'export * from "./local.js";',
      'const m = await import("mathjs");',
      'const r = require("left-pad");',
      'import "side-effect";',
    ].join("\n");
    expect(extractImports(code, "typescript")).toEqual(["node:fs", "lodash", "@scope/pkg", "./local.js", "mathjs", "left-pad", "side-effect"]);
  });
  it("extracts Python imports, top-level names, no relatives", () => {
    const code = "import numpy as np, os.path\nfrom collections import Counter\nfrom . import sibling\n  import json\n";
    expect(extractImports(code, "python")).toEqual(["numpy", "os", "json", "collections"]);
  });
  it("marks each import with the checker's verdict and writes requirements.txt", async () => {
    const probes: string[] = [];
    const manifest = await buildDependencyManifest("import math\nimport numpy\n", "python", async (probe, { language }) => {
      probes.push(probe);
      return probe.includes("numpy")
        ? { ok: false, language, status: "forbidden", error: { name: "ImportError", message: "numpy is not available" } }
        : { ok: true, language };
    });
    expect(probes).toEqual(["import math\n", "import numpy\n"]);
    expect(manifest.dependencies).toEqual([
      { name: "math", available: true },
      { name: "numpy", available: false, reason: "numpy is not available" },
    ]);
    expect(requirementsText(manifest).split("\n").slice(1)).toEqual(["numpy", ""]);
  });
});

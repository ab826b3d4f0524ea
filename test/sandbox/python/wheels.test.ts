/**
 * Pure-Python wheels: installed before user code, importable (modules and submodules, with
 * their metadata), listed in the `forbidden` message, kept in a snapshot named by the wheel
 * set's hash and reused; native, corrupt and non-wheel files refused at creation.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidOptionError } from "../../../src/errors.js";
import { createSandbox } from "../../../src/sandbox/sandbox.js";
import { resolvePythonPaths } from "../../../src/sandbox/python/host/deno-paths.js";
import { createPythonEngine } from "../../../src/sandbox/python/host/engine.js";
import { loadWheels, snapshotFileFor } from "../../../src/sandbox/python/host/wheels.js";
import type { LanguageEngine } from "../../../src/sandbox/types.js";
import { wheel, zip } from "./wheel-builder.js";
import { options } from "./support.js";

const dir = mkdtempSync(join(tmpdir(), "cs-wheels-"));
const pure = join(dir, "tinycalc-1.0-py3-none-any.whl");
writeFileSync(
  pure,
  wheel("tinycalc", "1.0", {
    "tinycalc/__init__.py": "from .ops import add\nVERSION = '1.0'\n",
    "tinycalc/ops.py": "def add(a, b):\n    return a + b\n",
    "tinycalc/extra.py": "def triple(x):\n    return 3 * x\n",
  }),
);

let engine: LanguageEngine;

beforeAll(async () => {
  engine = createPythonEngine({ poolSize: 1, wheels: [pure] });
  await engine.warm();
}, 300_000);

afterAll(async () => {
  await engine?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe("Python wheels", { timeout: 120_000 }, () => {
  it("installs a pure wheel: package, submodule and metadata are importable", async () => {
    const r = await engine.run(
      "import sys\nloaded = 'tinycalc' in sys.modules\nimport tinycalc\nfrom tinycalc.extra import triple\nfrom importlib.metadata import version\n[loaded, tinycalc.add(2, 3), triple(2), tinycalc.VERSION, version('tinycalc')]",
      options(),
    );
    expect(r.status).toBe("success");
    // Imported once while the snapshot was made: runs do not pay for the import.
    expect(r.result).toEqual([true, 5, 6, "1.0", "1.0"]);
    expect((await engine.check("import tinycalc.ops", "python")).ok).toBe(true);
  });

  it("lists the installed packages in the forbidden message", async () => {
    const r = await engine.run("import not_in_any_lock", options());
    expect(r.status).toBe("forbidden");
    expect(r.error?.message).toContain("installed packages: tinycalc");
    // A package of Pyodide's lock: the option that adds it, and what is installed.
    const numpy = await engine.run("import numpy", options());
    expect(numpy.error?.message).toMatch(/standard library and tinycalc; its package numpy .*python\.packages: \["numpy"\]/);
  });

  it("keeps the install in a snapshot named by the wheels' hash and reuses it", async () => {
    const file = snapshotFileFor(resolvePythonPaths().snapshotFile, loadWheels([pure]));
    expect(file).toMatch(/-wheels-[0-9a-f]{16}\.snapshot$/);
    const before = statSync(file).mtimeMs;
    const second = createPythonEngine({ poolSize: 1, wheels: [pure] });
    try {
      const r = await second.run("import tinycalc\ntinycalc.add(1, 1)", options());
      expect(r.result).toBe(2);
    } finally {
      await second.dispose();
    }
    expect(statSync(file).mtimeMs).toBe(before);
  });

  it("works through createSandbox({ python: { wheels } })", async () => {
    const sandbox = createSandbox({ poolSize: 1, python: { wheels: [pure] } });
    try {
      const r = await sandbox.run("from tinycalc import add\nadd(20, 22)", { language: "python" });
      expect(r.result).toBe(42);
    } finally {
      await sandbox.dispose();
    }
  });

  it("refuses native, corrupt and non-wheel files at creation, saying why", () => {
    const write = (name: string, bytes: Buffer) => {
      const path = join(dir, name);
      writeFileSync(path, bytes);
      return path;
    };
    const cases: Array<[string, RegExp]> = [
      [write("native-1.0-cp311-cp311-linux_x86_64.whl", wheel("native", "1.0", { "native.py": "" })), /platform linux_x86_64/],
      [
        write("impure-1.0-py3-none-any.whl", wheel("impure", "1.0", { "impure.py": "" }, "Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: py3-none-any\n")),
        /Root-Is-Purelib/,
      ],
      [
        write("tagged-1.0-py3-none-any.whl", wheel("tagged", "1.0", { "tagged.py": "" }, "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: cp311-cp311-manylinux_2_17_x86_64\n")),
        /manylinux/,
      ],
      [write("corrupt-1.0-py3-none-any.whl", Buffer.from("PK\u0003\u0004 this is not really a zip")), /not a readable zip/],
      [write("plain-1.0-py3-none-any.whl", zip({ "plain.py": "x = 1\n" })), /0 \.dist-info/],
      [write("slip-1.0-py3-none-any.whl", wheel("slip", "1.0", { "../evil.py": "" })), /unsafe entry name/],
      [join(dir, "missing-1.0-py3-none-any.whl"), /cannot be read/],
    ];
    for (const [path, why] of cases) {
      expect(() => createPythonEngine({ wheels: [path] }), path).toThrow(InvalidOptionError);
      expect(() => createPythonEngine({ wheels: [path] }), path).toThrow(why);
      expect(() => createSandbox({ python: { wheels: [path] } }), path).toThrow(/python\.wheels\[0\]/);
    }
  });
});

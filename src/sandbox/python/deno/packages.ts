/**
 * Installs the caller's pure-Python packages (checked and unpacked on the host, wheels.ts)
 * into the interpreter's site-packages. The files live in the in-memory file system, which a
 * memory snapshot does not hold, so every interpreter writes them again (milliseconds); the
 * snapshot keeps the imported modules, so runs do not pay for importing them.
 */
import type { PyodideAPI } from "pyodide";
import type { EmscriptenFs } from "./files.js";
import type { WorkerPackages } from "../shared/protocol.js";

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Writes the package files; with `preImport` (while making the snapshot) also imports each
 * top-level module once, ignoring failures (the program then sees the error on its own import).
 *
 * @example
 * installPackages(py, packages, true);
 */
export function installPackages(py: PyodideAPI, packages: WorkerPackages, preImport: boolean): void {
  const paths = Object.keys(packages.files);
  if (paths.length === 0) return;
  const fs = (py as unknown as { FS: EmscriptenFs }).FS;
  const purelib = String(py.runPython("import sysconfig as _cs_sc\n_cs_sc.get_paths()['purelib']"));
  for (const path of paths) {
    const full = `${purelib}/${path}`;
    fs.mkdirTree(full.slice(0, full.lastIndexOf("/")));
    fs.writeFile(full, packages.files[path]!);
  }
  py.runPython("import importlib as _cs_il\n_cs_il.invalidate_caches()\ndel _cs_il, _cs_sc");
  if (!preImport) return;
  const names = packages.topLevel.filter((name) => IDENTIFIER.test(name));
  py.runPython(
    `def _cs_preimport(names):\n    import importlib\n    for name in names:\n        try:\n            importlib.import_module(name)\n        except BaseException:\n            pass\n_cs_preimport(${JSON.stringify(names)})\ndel _cs_preimport`,
  );
}

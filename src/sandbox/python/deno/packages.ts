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
  // With native packages, nothing is imported into the snapshot: a pure package imported before
  // its native dependency exists could keep "not available" in its module state.
  if (!preImport || packages.native.length > 0) return;
  preImportAll(py, packages);
}

/**
 * Loads the packages with native code (files in the host's package cache, sha256 checked there)
 * with Pyodide's own loader, which unpacks each wheel into site-packages and links its shared
 * libraries into this interpreter; then imports every top-level module once. Runs in every new
 * interpreter, before its baseline: Pyodide's memory snapshot restores the linear memory only,
 * not the libraries' WebAssembly instances, so these cannot come from the snapshot.
 *
 * @throws Error naming the file when Pyodide reports a failure.
 * @example
 * await loadNativePackages(py, packages);
 */
export async function loadNativePackages(py: PyodideAPI, packages: WorkerPackages): Promise<void> {
  if (packages.native.length === 0) return;
  for (const path of packages.native) {
    const errors: string[] = [];
    // Messages go nowhere: the console writes around the channel (counted as guest bytes).
    await py.loadPackage(path, { messageCallback: () => undefined, errorCallback: (message) => void errors.push(message), checkIntegrity: false });
    if (errors.length > 0) throw new Error(`Pyodide could not load ${path.slice(path.lastIndexOf("/") + 1)}: ${errors.join("; ").slice(0, 500)}`);
  }
  preImportAll(py, packages);
}

/**
 * With matplotlib among the packages: the Agg backend (no display here), and `plt.show()` saves
 * each open figure as a PNG under `/home/pyodide/images/` and closes it, where the host picks up
 * images (run-extras.ts). Part of the interpreter's fresh state (before the baseline).
 *
 * @example
 * setUpCharts(py, packages);
 */
export function setUpCharts(py: PyodideAPI, packages: WorkerPackages): void {
  if (!packages.topLevel.includes("matplotlib")) return;
  py.runPython(`def _cs_charts():
    import os
    os.environ["MPLBACKEND"] = "Agg"
    # Its font cache goes outside the working directory (whose files a run returns).
    os.environ.setdefault("MPLCONFIGDIR", "/tmp/matplotlib")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except BaseException:
        return
    def show(*args, **kwargs):
        folder = "/home/pyodide/images"
        os.makedirs(folder, exist_ok=True)
        for number in plt.get_fignums():
            count = len(os.listdir(folder))
            plt.figure(number).savefig("%s/figure-%d.png" % (folder, count + 1), format="png")
        plt.close("all")
    plt.show = show
_cs_charts()
del _cs_charts`);
}

function preImportAll(py: PyodideAPI, packages: WorkerPackages): void {
  const names = packages.topLevel.filter((name) => IDENTIFIER.test(name));
  py.runPython(
    `def _cs_preimport(names):\n    import importlib\n    for name in names:\n        try:\n            importlib.import_module(name)\n        except BaseException:\n            pass\n_cs_preimport(${JSON.stringify(names)})\ndel _cs_preimport`,
  );
}

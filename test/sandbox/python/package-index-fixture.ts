/**
 * A local package index for tests, built on the spot (fixed bytes, so the same sha256 on every
 * run): a lock in Pyodide's format and three small wheels made here, with dependencies between
 * them. `cs-native` carries Pyodide's platform tag (no native code inside) so that it takes the
 * path of packages with shared libraries: Pyodide's own loader, reading the cached file.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { wheel } from "./wheel-builder.js";

interface FixturePackage {
  name: string;
  version: string;
  fileName: string;
  depends: string[];
  imports: string[];
  bytes: Buffer;
}

const NATIVE_TAG = "cp314-cp314-pyemscripten_2026_0_wasm32";

/** The fixture's packages. */
export function fixturePackages(): FixturePackage[] {
  return [
    {
      name: "cs-six",
      version: "1.0",
      fileName: "cs_six-1.0-py3-none-any.whl",
      depends: [],
      imports: ["cs_six"],
      bytes: wheel("cs_six", "1.0", { "cs_six/__init__.py": "VERSION = '1.0'\ndef text_type():\n    return str\n" }),
    },
    {
      name: "cs-dateutil",
      version: "2.0",
      fileName: "cs_dateutil-2.0-py3-none-any.whl",
      depends: ["cs-six"],
      imports: ["cs_dateutil"],
      bytes: wheel("cs_dateutil", "2.0", {
        "cs_dateutil/__init__.py": "import cs_six\nfrom datetime import date\ndef parse(text):\n    y, m, d = (int(p) for p in text.split('-'))\n    return date(y, m, d)\nSIX = cs_six.VERSION\n",
      }),
    },
    {
      name: "cs-native",
      version: "0.1",
      fileName: `cs_native-0.1-${NATIVE_TAG}.whl`,
      depends: ["cs-dateutil"],
      imports: ["cs_native"],
      bytes: wheel(
        "cs_native",
        "0.1",
        { "cs_native/__init__.py": "import cs_dateutil\ndef year(text):\n    return cs_dateutil.parse(text).year\n" },
        `Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: false\nTag: ${NATIVE_TAG}\n`,
      ),
    },
  ];
}

/** The fixture's lock text (Pyodide's format). */
export function fixtureLock(packages = fixturePackages()): string {
  const entries = Object.fromEntries(
    packages.map((p) => [
      p.name,
      {
        name: p.name,
        version: p.version,
        file_name: p.fileName,
        install_dir: "site",
        sha256: createHash("sha256").update(p.bytes).digest("hex"),
        package_type: "package",
        imports: p.imports,
        depends: p.depends,
        unvendored_tests: false,
      },
    ]),
  );
  return JSON.stringify({ info: { abi_version: "2026_0", arch: "wasm32", platform: "emscripten_5_0_3", python: "3.14.2" }, packages: entries }, null, 1);
}

/** Writes the index (wheels and `pyodide-lock.json`) into `dir`. */
export function writePackageIndex(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const packages = fixturePackages();
  for (const p of packages) writeFileSync(join(dir, p.fileName), p.bytes);
  writeFileSync(join(dir, "pyodide-lock.json"), fixtureLock(packages));
}

/** An HTTP server on 127.0.0.1 serving `dir`, counting requests per path. */
export async function serveFolder(dir: string): Promise<{ url: string; requests: Map<string, number>; close(): Promise<void>; server: Server }> {
  const requests = new Map<string, number>();
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? "/", "http://x").pathname).replace(/^\/+/, "");
    requests.set(path, (requests.get(path) ?? 0) + 1);
    if (path.includes("/") || path.includes("..")) {
      response.writeHead(404).end();
      return;
    }
    try {
      const body = readFileSync(join(dir, path));
      response.writeHead(200, { "content-length": body.length }).end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}/`,
    requests,
    server,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Writes the published files of the entry points that load LangChain's peers
 * (`dist/src/<entry>/entry.js` and `entry.cjs`), run by `npm run build:esm` after tsc. Each checks
 * the peers first (`dist/src/peers.js`) and only then loads the entry's `index`: an ES module's
 * static imports are all resolved before any of its code runs, so a check inside `index.js`
 * would never run before Node's own `ERR_MODULE_NOT_FOUND`. The ES wrapper loads `index.js` with
 * a top-level `import()` after the check and re-exports its names (read here from the built
 * module, so the list cannot drift); the CommonJS wrapper requires in order. Types stay
 * `index.d.ts` / `index.d.cts`.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";

const dist = fileURLToPath(new URL("../dist/src/", import.meta.url));

/** Folder under dist/src -> the entry's name in `PEERS` (src/peers.ts). */
const GUARDED = { tools: "codegen-sandbox/tools", graph: "codegen-sandbox/graph", mcp: "codegen-sandbox/mcp" };

for (const [folder, entry] of Object.entries(GUARDED)) {
  const names = Object.keys(await import(pathToFileURL(`${dist}${folder}/index.js`).href)).sort();
  if (names.includes("default")) throw new Error(`${folder}/index.js has a default export, which the wrapper does not re-export`);
  const header = `// Written by scripts/peer-entries.mjs: checks ${entry}'s peer dependencies before loading ./index.`;
  writeFileSync(
    `${dist}${folder}/entry.js`,
    `${header}\nimport { requirePeers } from "../peers.js";\nrequirePeers(${JSON.stringify(entry)});\nexport const { ${names.join(", ")} } = await import("./index.js");\n`,
  );
  writeFileSync(`${dist}${folder}/entry.cjs`, `"use strict";\n${header}\nrequire("../peers.cjs").requirePeers(${JSON.stringify(entry)});\nmodule.exports = require("./index.cjs");\n`);
}

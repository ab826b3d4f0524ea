#!/bin/sh
# One Deno process, reading Pyodide and this folder, writing only out/ (the study's files).
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
exec npx --prefix "$root" deno run --no-config --no-lock --no-prompt --quiet \
  --allow-read="$root/node_modules/pyodide,$here" --allow-write="$here/out" \
  --v8-flags=--max-old-space-size=1024,--liftoff-only,--disallow-code-generation-from-strings "$@"

#!/bin/sh
# In-place restore into an interpreter started ahead: five fresh processes per variant, one at a time.
cd "$(dirname "$0")"
for i in 1 2 3 4 5; do
  for v in raw delta; do ./deno.sh inplace.ts long $v; done
done > out/inplace.jsonl
for i in 1 2 3; do ./deno.sh inplace.ts big raw; done > out/inplace-big.jsonl

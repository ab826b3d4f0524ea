#!/bin/sh
# Question 2 and 3: five fresh Deno processes per variant, one at a time.
cd "$(dirname "$0")"
for i in 1 2 3 4 5; do
  for v in raw deflate delta; do ./deno.sh restore.ts long $v; done
  ./deno.sh replay.ts
done > out/restores.jsonl

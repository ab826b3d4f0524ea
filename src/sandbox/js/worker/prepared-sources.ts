/**
 * Source preparation (parse + walk, prepare.ts) done once per distinct source in this worker.
 * `prepareJavaScript` is a pure function of the source, its language and the granted names: it
 * reads nothing else (its only module state is the parsers it loads once), so a result kept
 * here is the same text any later run with the same input would get. Nothing of a run is kept:
 * only prepared source text and its syntax verdict, frozen so no caller can change them.
 */
import { BoundedMap } from "../../../common/bounded-map.js";
import { prepareJavaScript, type PreparedProgram } from "../prepare/prepare.js";

/** Sources kept: enough for a caller that repeats a few programs (tests, retries, benchmarks). */
const MAX_SOURCES = 64;
/** Longer sources are prepared every time: keeping them would cost more memory than their parse costs time. */
const MAX_SOURCE_CHARS = 16 * 1024;

const prepared = new BoundedMap<string, PreparedProgram>(MAX_SOURCES);

/** `prepareJavaScript`, answered from the sources this worker prepared before when it can. */
export function prepareOnce(source: string, language: "javascript" | "typescript", grantedNames: readonly string[] = []): PreparedProgram {
  if (source.length > MAX_SOURCE_CHARS) return prepareJavaScript(source, language, { grantedNames: [...grantedNames] });
  // JSON of the names holds no raw newline, so the first two newlines end the language and the names.
  const key = `${language}\n${JSON.stringify(grantedNames)}\n${source}`;
  const known = prepared.get(key);
  if (known) return known;
  const result = freeze(prepareJavaScript(source, language, { grantedNames: [...grantedNames] }));
  prepared.set(key, result);
  return result;
}

function freeze(result: PreparedProgram): PreparedProgram {
  if (!result.ok) Object.freeze(result.error);
  return Object.freeze(result);
}

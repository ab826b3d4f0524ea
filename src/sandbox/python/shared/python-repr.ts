/**
 * Python's `repr` of a string, written on the JavaScript side: what a model reads of a Python
 * value (the graph's shown output, the tests' judged values) looks as Python would print it.
 */

/**
 * `repr(text)` as CPython writes it: single quotes unless the text has one and no double quote,
 * backslash escapes for the quote, `\\`, `\n`, `\r`, `\t`, other control characters as `\xNN`,
 * and a lone surrogate as `\udXXX`.
 *
 * @example
 * ```ts
 * pythonStringRepr("it's"); // `"it's"`
 * ```
 */
export function pythonStringRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (char === "\\") out += "\\\\";
    else if (char === quote) out += `\\${quote}`;
    else if (char === "\n") out += "\\n";
    else if (char === "\r") out += "\\r";
    else if (char === "\t") out += "\\t";
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else if (code >= 0xd800 && code <= 0xdfff) out += `\\u${code.toString(16)}`;
    else out += char;
  }
  return out + quote;
}

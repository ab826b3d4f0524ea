/** Removes the Markdown code fence models often wrap code in, keeping the code inside. */

const FENCE = /```[\w+-]*[^\n]*\n([\s\S]*?)```/g;

/**
 * Returns the code of a model reply: the fenced blocks joined when there are any (prose around
 * them is dropped), otherwise the reply itself, trimmed.
 *
 * @example
 * ```ts
 * stripCodeFences("Here:\n```js\nfunction add(a, b) { return a + b; }\n```"); // "function add(a, b) { return a + b; }"
 * ```
 */
export function stripCodeFences(reply: string): string {
  const blocks = [...reply.matchAll(FENCE)].map((match) => match[1]!.trimEnd());
  if (blocks.length > 0) return blocks.join("\n\n").trim();
  // An unclosed fence (a reply cut at max tokens) still starts with one.
  const open = /^\s*```[^\n]*\n/.exec(reply);
  return (open ? reply.slice(open[0].length) : reply).trim();
}

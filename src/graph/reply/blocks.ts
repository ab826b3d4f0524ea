/**
 * The fenced blocks of a Markdown reply, with the line of prose that introduces each one
 * ("Example usage:", "Output:"), as CommonMark reads them: backtick or tilde fences of three or
 * more, a closing fence at least as long, the body dedented by the fence's own indentation (a
 * block inside a list item), an unclosed block running to the end of the reply.
 */

/** One fenced block of a reply. */
export interface ReplyBlock {
  /** The info string's first word, lower-cased, without `language-`/`{.`: `python`, `js`, `""` when untagged. */
  tag: string;
  body: string;
  /** False for a block the reply never closes (cut at the model's token limit). */
  complete: boolean;
  /** The last line of prose before the block, since the previous block (`""` when none). */
  lead: string;
}

const OPEN = /^(\s*)(`{3,}|~{3,})\s*(.*)$/;

/**
 * The fenced blocks of `text`, in order.
 *
 * @example
 * ```ts
 * fencedBlocks("Here:\n```py\nprint(1)\n```");
 * // [{ tag: "py", body: "print(1)", complete: true, lead: "Here:" }]
 * ```
 */
export function fencedBlocks(text: string): ReplyBlock[] {
  const blocks: ReplyBlock[] = [];
  const lines = text.split("\n");
  let prose: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const open = OPEN.exec(lines[i]!);
    // A backtick fence's info string may not hold a backtick: "```x```" is inline code, not a fence.
    if (!open || (open[2]![0] === "`" && open[3]!.includes("`"))) {
      prose.push(lines[i]!);
      i++;
      continue;
    }
    const indent = open[1]!.length;
    const fence = open[2]!;
    const close = new RegExp(`^\\s*${fence[0] === "`" ? "`" : "~"}{${fence.length},}\\s*$`);
    const body: string[] = [];
    i++;
    while (i < lines.length && !close.test(lines[i]!)) {
      body.push(dedent(lines[i]!, indent));
      i++;
    }
    blocks.push({ tag: tagOf(open[3]!), body: body.join("\n"), complete: i < lines.length, lead: lastProseLine(prose) });
    prose = [];
    i++; // the closing fence, or past the end of an unclosed block
  }
  return blocks;
}

function tagOf(info: string): string {
  const word = /^\{?\.?([\w+#.-]*)/.exec(info.trim())![1]!.toLowerCase();
  return word.replace(/^(?:language|lang)-/, "");
}

/** Removes up to `indent` leading spaces, as CommonMark does for the lines of an indented fence. */
function dedent(line: string, indent: number): string {
  let cut = 0;
  while (cut < indent && line[cut] === " ") cut++;
  return line.slice(cut);
}

function lastProseLine(lines: string[]): string {
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!.trim();
    if (line !== "") return line;
  }
  return "";
}

/**
 * The content of a call's `ToolMessage`: the outcome's text, and with `images: "content"` the
 * images the run wrote as content blocks.
 */
import type { CellOutcome, Persistence } from "../replay/runner.js";
import { outcomeText } from "./describe.js";
import { imageBlocks, imagesIn, type ImageBlock, type ImagesMode, type RunImage } from "./images.js";

/** What the model reads of a call: text, or text and image blocks. */
export type ToolMessageContent = string | Array<{ type: "text"; text: string } | ImageBlock>;

/** The message content of `outcome` (bounded to `maxContentChars`) and the images it names. */
export function toolMessageContent(code: string, outcome: CellOutcome, mode: ImagesMode, maxContentChars: number, persistence: Persistence): { content: ToolMessageContent; images: RunImage[] } {
  const text = outcomeText(outcome, code, maxContentChars, persistence);
  const images = mode === "off" ? [] : imagesIn(outcome.files.written);
  if (mode !== "content" || images.length === 0) return { content: text, images };
  const { blocks, notes } = imageBlocks(images, outcome.files.written);
  const shown = blocks.length > 0 ? `\n[${blocks.length} image(s) attached: ${images.filter((i) => i.mimeType !== "image/svg+xml").slice(0, blocks.length).map((i) => i.path).join(", ")}]` : "";
  const left = notes.length > 0 ? `\n${notes.join("\n")}` : "";
  return { content: [{ type: "text" as const, text: `${text}${shown}${left}` }, ...blocks], images };
}

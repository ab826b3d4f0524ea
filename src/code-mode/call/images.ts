/**
 * Images a run wrote (a chart matplotlib saved, a PNG any program made), for the tool message:
 * as image content blocks when the model accepts images in tool messages, else named in the
 * artifact. Picked from the files the run wrote, checked by their first bytes, bounded in
 * count and bytes. One place for `execute_code` and code mode.
 */
import { InvalidOptionError } from "../../errors.js";

/** How a run's images reach the model: content blocks, the artifact only, or not at all. */
export type ImagesMode = "content" | "artifact" | "off";

/** Most images one tool message carries as content blocks. */
export const DEFAULT_MAX_IMAGES = 4;
/** Largest image sent as a content block (a larger one stays in the artifact's files). */
export const DEFAULT_MAX_IMAGE_BYTES = 1024 * 1024;
/** Largest total of the image blocks of one tool message. */
export const MAX_TOTAL_IMAGE_BYTES = 4 * 1024 * 1024;

/** The folder (under the run's working directory) whose images come first; Python's `plt.show()` saves figures there. */
export const IMAGES_FOLDER = "images/";

/** An image the run wrote. */
export interface RunImage {
  path: string;
  mimeType: "image/png" | "image/jpeg" | "image/svg+xml";
  size: number;
}

/** A standard LangChain image content block (base64). */
export type ImageBlock = {
  type: "image";
  mimeType: string;
  data: string;
};

/**
 * Checks the `images` option.
 *
 * @throws InvalidOptionError naming `images`.
 */
export function checkImagesMode(value: unknown): ImagesMode | undefined {
  if (value === undefined || value === "content" || value === "artifact" || value === "off") return value;
  throw new InvalidOptionError("images", value, '"content" (image content blocks in the tool message), "artifact" (named in the artifact) or "off"');
}

/**
 * The mode of one call: the option when given; else content blocks when the model that wrote
 * the call declares `profile.imageToolMessage` (LangChain's model profile), else the artifact.
 *
 * @example
 * imagesModeFor(undefined, { imageToolMessage: true }); // "content"
 */
export function imagesModeFor(option: ImagesMode | undefined, profile: { imageToolMessage?: boolean } | undefined): ImagesMode {
  if (option !== undefined) return option;
  return profile?.imageToolMessage === true ? "content" : "artifact";
}

/**
 * The images among written files (PNG and JPEG by their signature, SVG by its text), those in
 * `images/` first, then by path.
 *
 * @example
 * imagesIn(new Map([["images/figure-1.png", png]])); // [{ path: "images/figure-1.png", mimeType: "image/png", size }]
 */
export function imagesIn(written: ReadonlyMap<string, Uint8Array>): RunImage[] {
  const out: RunImage[] = [];
  for (const [path, bytes] of written) {
    const mimeType = imageType(path, bytes);
    if (mimeType) out.push({ path, mimeType, size: bytes.byteLength });
  }
  // Thread paths are absolute (`/images/a.png`).
  const rank = (p: string) => (p.replace(/^\//, "").startsWith(IMAGES_FOLDER) ? 0 : 1);
  return out.sort((a, b) => rank(a.path) - rank(b.path) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * Content blocks of the images (PNG and JPEG: what providers accept), within the bounds, and a
 * note for each one left out.
 *
 * @example
 * const { blocks, notes } = imageBlocks(images, written);
 */
export function imageBlocks(
  images: readonly RunImage[],
  written: ReadonlyMap<string, Uint8Array>,
  bounds: { maxImages?: number; maxImageBytes?: number } = {},
): { blocks: ImageBlock[]; notes: string[] } {
  const maxImages = bounds.maxImages ?? DEFAULT_MAX_IMAGES;
  const maxImageBytes = bounds.maxImageBytes ?? DEFAULT_MAX_IMAGE_BYTES;
  const blocks: ImageBlock[] = [];
  const notes: string[] = [];
  let total = 0;
  for (const image of images) {
    if (image.mimeType === "image/svg+xml") {
      notes.push(`${image.path}: an SVG image, not shown (models take PNG or JPEG); it is in the tool's artifact`);
      continue;
    }
    if (blocks.length >= maxImages) {
      notes.push(`${image.path}: not shown, more than ${maxImages} images; it is in the tool's artifact`);
      continue;
    }
    if (image.size > maxImageBytes || total + image.size > MAX_TOTAL_IMAGE_BYTES) {
      notes.push(`${image.path}: not shown, ${image.size} bytes (over the ${image.size > maxImageBytes ? maxImageBytes : MAX_TOTAL_IMAGE_BYTES}-byte bound); it is in the tool's artifact`);
      continue;
    }
    total += image.size;
    blocks.push({ type: "image", mimeType: image.mimeType, data: Buffer.from(written.get(image.path)!).toString("base64") });
  }
  return { blocks, notes };
}

function imageType(path: string, bytes: Uint8Array): RunImage["mimeType"] | undefined {
  const lower = path.toLowerCase();
  if (lower.endsWith(".png") && bytes.length >= 8 && bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47 && bytes[4] === 0x0d && bytes[5] === 0x0a && bytes[6] === 0x1a && bytes[7] === 0x0a) return "image/png";
  if ((lower.endsWith(".jpg") || lower.endsWith(".jpeg")) && bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "image/jpeg";
  if (lower.endsWith(".svg") && /<svg[\s>]/i.test(Buffer.from(bytes.subarray(0, 4096)).toString("utf8"))) return "image/svg+xml";
  return undefined;
}

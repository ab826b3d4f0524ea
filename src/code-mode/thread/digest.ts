/** The SHA-256 of a text (its UTF-8 bytes), in hex: how code mode names a file content. */
import { createHash } from "node:crypto";

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

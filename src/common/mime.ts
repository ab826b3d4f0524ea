/**
 * File types by extension, by the rule deepagents' own backends use (its `getMimeType` and
 * `isTextMimeType` are not exported): a few known media and document types are binary, every
 * other file is text. Binary files are read as bytes and written from base64, as deepagents'
 * `write_file` sends them.
 */

const MIME_TYPES: Readonly<Record<string, string>> = {
  ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp",
  ".svg": "image/svg+xml", ".heic": "image/heic", ".heif": "image/heif",
  ".mp3": "audio/mpeg", ".wav": "audio/wav", ".aiff": "audio/aiff", ".aac": "audio/aac", ".ogg": "audio/ogg", ".flac": "audio/flac",
  ".mp4": "video/mp4", ".webm": "video/webm", ".mpeg": "video/mpeg", ".mov": "video/quicktime", ".avi": "video/x-msvideo",
  ".flv": "video/x-flv", ".mpg": "video/mpeg", ".wmv": "video/x-ms-wmv", ".3gpp": "video/3gpp",
  ".pdf": "application/pdf", ".ppt": "application/vnd.ms-powerpoint",
  ".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  ".md": "text/markdown", ".markdown": "text/markdown", ".html": "text/html", ".htm": "text/html", ".css": "text/css",
  ".csv": "text/csv", ".xml": "text/xml", ".json": "application/json",
  ".js": "application/javascript", ".mjs": "application/javascript", ".cjs": "application/javascript",
};

/**
 * The MIME type of a path, from its extension; `text/plain` for anything not listed.
 *
 * @example
 * mimeTypeOf("/img/logo.PNG"); // "image/png"
 * mimeTypeOf("/Dockerfile"); // "text/plain"
 */
export function mimeTypeOf(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return "text/plain";
  return MIME_TYPES[name.slice(dot).toLowerCase()] ?? "text/plain";
}

/**
 * True for MIME types read as text (`text/*`, JSON, JavaScript, SVG).
 *
 * @example
 * isTextMime("application/json"); // true
 * isTextMime("image/png"); // false
 */
export function isTextMime(mimeType: string): boolean {
  return mimeType.startsWith("text/") || mimeType === "application/json" || mimeType === "application/javascript" || mimeType === "image/svg+xml";
}

/** The package's one copy of each small helper: bounded maps, byte comparison and display, MIME types. */
import { describe, expect, it } from "vitest";
import { BoundedMap } from "../../src/common/bounded-map.js";
import { formatBytes, sameBytes } from "../../src/common/bytes.js";
import { isTextMime, mimeTypeOf } from "../../src/common/mime.js";

describe("common helpers", () => {
  it("BoundedMap keeps the newest max entries; setting a key again makes it the newest", () => {
    const map = new BoundedMap<string, number>(2);
    map.set("a", 1).set("b", 2).set("a", 3).set("c", 4);
    expect([map.has("a"), map.has("b"), map.has("c")]).toEqual([true, false, true]);
    expect(map.get("a")).toBe(3);
    expect(map.size).toBe(2);
  });

  it("sameBytes compares views by their own bytes, and an absent side equals nothing", () => {
    const whole = new Uint8Array([9, 1, 2, 3]);
    expect(sameBytes(whole.subarray(1), new Uint8Array([1, 2, 3]))).toBe(true);
    expect(sameBytes(whole.subarray(1), new Uint8Array([1, 2, 4]))).toBe(false);
    expect(sameBytes(undefined, new Uint8Array())).toBe(false);
  });

  it("formatBytes and the MIME rule read as the messages and deepagents expect", () => {
    expect([formatBytes(512), formatBytes(1536), formatBytes(3 * 1024 * 1024)]).toEqual(["512 B", "1.5 KiB", "3.0 MiB"]);
    expect([mimeTypeOf("/a/logo.PNG"), mimeTypeOf("/Dockerfile"), mimeTypeOf("/x.svg")]).toEqual(["image/png", "text/plain", "image/svg+xml"]);
    expect([isTextMime("application/json"), isTextMime("image/svg+xml"), isTextMime("image/png")]).toEqual([true, true, false]);
  });
});

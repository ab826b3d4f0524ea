import { describe, expect, it } from "vitest";
import { OutputMirror, createOutputMirrorBuffer } from "../../../src/sandbox/js/shared/output-mirror.js";

describe("OutputMirror", () => {
  it("keeps writes per stream, in order, across two views of one buffer", () => {
    const buffer = createOutputMirrorBuffer(1024);
    const writer = new OutputMirror(buffer);
    const reader = new OutputMirror(buffer);
    expect(writer.append("stdout", "a\n")).toBe(true);
    expect(writer.append("stderr", "é!\n")).toBe(true);
    expect(writer.append("stdout", "b\n")).toBe(true);
    expect(reader.read()).toEqual({ stdout: "a\nb\n", stderr: "é!\n" });
    writer.clear();
    expect(reader.read()).toEqual({ stdout: "", stderr: "" });
  });

  it("refuses a write that does not fit, keeping what came before", () => {
    const mirror = new OutputMirror(createOutputMirrorBuffer(16));
    expect(mirror.append("stdout", "12345")).toBe(true);
    expect(mirror.append("stdout", "1234567890")).toBe(false);
    expect(mirror.read().stdout).toBe("12345");
  });
});

import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { LineFramer } from "../../src/mcp/line-framer.js";

async function framed(chunks: string[], maxLineBytes: number): Promise<{ lines: string[]; overflow: number | undefined }> {
  let overflow: number | undefined;
  const framer = new LineFramer(maxLineBytes, (bytes) => (overflow = bytes));
  const lines: string[] = [];
  framer.on("data", (chunk: Buffer) => lines.push(chunk.toString()));
  const source = new PassThrough();
  source.pipe(framer);
  for (const chunk of chunks) source.write(chunk);
  source.end();
  await new Promise((resolve) => framer.once("end", resolve));
  return { lines, overflow };
}

describe("LineFramer", () => {
  it("passes one chunk per complete line, however the bytes were split", async () => {
    const { lines, overflow } = await framed(['{"a":', '1}\n{"b"', ":2}\n\n", '{"c":3}\r\n', "tail"], 100);
    expect(lines).toEqual(['{"a":1}\n', '{"b":2}\n', "\n", '{"c":3}\r\n', "tail"]);
    expect(overflow).toBeUndefined();
  });

  it("ends the stream as soon as a line passes the cap, without passing it on", async () => {
    const { lines, overflow } = await framed(["ok\n", "x".repeat(60), "x".repeat(60), "never\n"], 100);
    expect(lines).toEqual(["ok\n"]);
    expect(overflow).toBe(120);
  });

  it("accepts a line of exactly the cap", async () => {
    const { lines } = await framed(["x".repeat(50), "x".repeat(50) + "\n"], 100);
    expect(lines).toEqual(["x".repeat(100) + "\n"]);
  });
});

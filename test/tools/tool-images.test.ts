/**
 * Images a program writes reach the model: a PNG made with Python's standard library (`zlib` +
 * `struct`) arrives as a file of the artifact and, with `images: "content"` (or in code mode for
 * a model whose profile declares `imageToolMessage`), as an image content block, bounded in
 * count and bytes.
 */
import { afterAll, describe, expect, it } from "vitest";
import { ToolMessage } from "@langchain/core/messages";
import { createAgent } from "langchain";
import { MemorySaver } from "@langchain/langgraph";
import { createSandbox } from "../../src/sandbox/sandbox.js";
import { createCodeInterpreterTool, disposeCodeInterpreterTool, type ExecuteCodeArtifact } from "../../src/tools/code-interpreter-tool.js";
import { codeModeMiddleware } from "../../src/tools/code-mode-middleware.js";
import { DEFAULT_MAX_IMAGE_BYTES, DEFAULT_MAX_IMAGES, imageBlocks, imagesIn, imagesModeFor } from "../../src/code-mode/call/images.js";
import { scriptedCodeModel } from "../code-mode/helpers.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

/** A Python program that writes PNGs with the standard library only. */
const PNG_WRITER = `import os, struct, zlib, random
def png(w, h, pixel=None):
    rows = b''.join(b'\\x00' + (bytes(pixel) * w if pixel else random.randbytes(3 * w)) for _ in range(h))
    def chunk(kind, data):
        return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)
    return b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(rows, 0 if not pixel else 6)) + chunk(b'IEND', b'')
os.makedirs('images', exist_ok=True)
`;

function call(code: string, id = "call_img") {
  return { name: "execute_code", args: { code, language: "python" }, id, type: "tool_call" as const };
}

describe("images of a run", { timeout: 120_000 }, () => {
  it("arrives as a file and as an image content block with images: \"content\"", async () => {
    const interpreter = createCodeInterpreterTool({ sandbox, images: "content" });
    const message = (await interpreter.invoke(call(`${PNG_WRITER}open('images/chart.png', 'wb').write(png(4, 3, (255, 0, 0)))\nprint('drawn')`))) as ToolMessage;
    expect(Array.isArray(message.content)).toBe(true);
    const blocks = message.content as Array<{ type: string; text?: string; mimeType?: string; data?: string }>;
    expect(blocks[0]!.type).toBe("text");
    expect(blocks[0]!.text).toContain("drawn");
    expect(blocks[0]!.text).toContain("[1 image(s) attached: /images/chart.png]");
    expect(blocks[1]).toMatchObject({ type: "image", mimeType: "image/png" });
    const bytes = Buffer.from(blocks[1]!.data!, "base64");
    expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const artifact = message.artifact as ExecuteCodeArtifact;
    expect(artifact.images).toEqual([{ path: "/images/chart.png", mimeType: "image/png", size: bytes.length }]);
    const file = artifact.files?.written["/images/chart.png"] as { content: string; encoding?: string };
    expect(Buffer.from(file.content, "base64").equals(bytes)).toBe(true);
  });

  it("is bounded: at most four blocks, none over 1 MiB, each left out named", async () => {
    const interpreter = createCodeInterpreterTool({ sandbox, images: "content", timeoutMs: 20_000, maxFileBytes: 4 * 1024 * 1024 });
    const code = `${PNG_WRITER}for i in range(6):\n    open('images/p%d.png' % i, 'wb').write(png(2, 2, (i, i, i)))\nopen('big.png', 'wb').write(png(700, 600))\nopen('images/vector.svg', 'w').write('<svg xmlns="http://www.w3.org/2000/svg"></svg>')\nopen('images/fake.png', 'w').write('not a png')`;
    const message = (await interpreter.invoke(call(code))) as ToolMessage;
    const blocks = message.content as Array<{ type: string; text?: string }>;
    expect(blocks.filter((b) => b.type === "image")).toHaveLength(DEFAULT_MAX_IMAGES);
    const text = blocks[0]!.text!;
    expect(text).toContain("/images/p4.png: not shown, more than 4 images");
    expect(text).toContain("/images/p5.png: not shown, more than 4 images");
    expect(text).toContain("/images/vector.svg: an SVG image, not shown");
    expect(text).toContain("/big.png: not shown");
    expect(text).not.toContain("fake.png: not shown");
    const artifact = message.artifact as ExecuteCodeArtifact;
    expect(artifact.images?.some((i) => i.path.endsWith("fake.png"))).toBe(false);
    expect(artifact.images?.map((i) => i.path)).toEqual(["/images/p0.png", "/images/p1.png", "/images/p2.png", "/images/p3.png", "/images/p4.png", "/images/p5.png", "/images/vector.svg", "/big.png"]);
    expect(artifact.images!.at(-1)!.size).toBeGreaterThan(DEFAULT_MAX_IMAGE_BYTES);
  });

  it("leaves the content as text by default (no model profile) and names the images in the artifact", async () => {
    const interpreter = createCodeInterpreterTool({ sandbox });
    const message = (await interpreter.invoke(call(`${PNG_WRITER}open('images/a.png', 'wb').write(png(1, 1, (0, 0, 0)))`))) as ToolMessage;
    expect(typeof message.content).toBe("string");
    expect((message.artifact as ExecuteCodeArtifact).images?.map((i) => i.path)).toEqual(["/images/a.png"]);
    const off = createCodeInterpreterTool({ sandbox, images: "off" });
    const quiet = (await off.invoke(call(`${PNG_WRITER}open('images/a.png', 'wb').write(png(1, 1, (0, 0, 0)))`))) as ToolMessage;
    expect(typeof quiet.content).toBe("string");
    expect((quiet.artifact as ExecuteCodeArtifact).images).toBeUndefined();
    expect((quiet.artifact as ExecuteCodeArtifact).files?.written["/images/a.png"]).toBeDefined();
  });

  it("refuses a bad images option, naming it", () => {
    expect(() => createCodeInterpreterTool({ images: "inline" as never })).toThrow(/"images".*"content"/);
  });

  it("in code mode, sends blocks when the model's profile declares imageToolMessage", async () => {
    const model = scriptedCodeModel({ language: "python", code: `${PNG_WRITER}open('images/c.png', 'wb').write(png(2, 2, (0, 9, 0)))` }, "done");
    Object.defineProperty(model, "profile", { get: () => ({ imageToolMessage: true }) });
    const middleware = codeModeMiddleware({ sandbox, languages: ["python"] });
    const agent = createAgent({ model, middleware: [middleware], checkpointer: new MemorySaver() });
    try {
      const state = await agent.invoke({ messages: [{ role: "user", content: "Draw" }] }, { configurable: { thread_id: "img-1" } });
      const toolMessage = state.messages.find((m) => ToolMessage.isInstance(m)) as ToolMessage;
      const blocks = toolMessage.content as Array<{ type: string; mimeType?: string }>;
      expect(blocks.some((b) => b.type === "image" && b.mimeType === "image/png")).toBe(true);
    } finally {
      for (const t of middleware.tools ?? []) await disposeCodeInterpreterTool(t as never);
    }
  });
});

describe("the image rules", () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]);
  it("knows images by their first bytes, images/ first", () => {
    const written = new Map<string, Uint8Array>([
      ["z.png", png],
      ["images/b.jpg", Buffer.from([0xff, 0xd8, 0xff, 0xe0])],
      ["note.png", Buffer.from("text")],
    ]);
    expect(imagesIn(written).map((i) => [i.path, i.mimeType])).toEqual([
      ["images/b.jpg", "image/jpeg"],
      ["z.png", "image/png"],
    ]);
    expect(imageBlocks(imagesIn(written), written, { maxImages: 1 }).notes).toEqual(["z.png: not shown, more than 1 images; it is in the tool's artifact"]);
  });
  it("chooses content for a model that takes images in tool messages, else the artifact", () => {
    expect(imagesModeFor(undefined, { imageToolMessage: true })).toBe("content");
    expect(imagesModeFor(undefined, { imageToolMessage: false })).toBe("artifact");
    expect(imagesModeFor(undefined, undefined)).toBe("artifact");
    expect(imagesModeFor("off", { imageToolMessage: true })).toBe("off");
  });
});

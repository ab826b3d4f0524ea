import { describe, expect, it } from "vitest";
import { extractCode } from "../../src/graph/extract-code.js";

describe("extractCode", () => {
  it("takes the fenced block out of prose", () => {
    const reply = "Sure! Here is the program:\n\n```javascript\nconst x = 2;\nconsole.log(x * 21);\n```\n\nIt prints 42.";
    expect(extractCode(reply, "javascript")).toBe("const x = 2;\nconsole.log(x * 21);");
  });

  it("joins several blocks of the language in order and skips blocks of other languages", () => {
    const reply = [
      "First the helper:",
      "```py",
      "def square(n):",
      "    return n * n",
      "```",
      "Run it with:",
      "```bash",
      "python main.py",
      "```",
      "Then use it:",
      "```python",
      "print(square(4))",
      "```",
    ].join("\n");
    expect(extractCode(reply, "python")).toBe("def square(n):\n    return n * n\n\nprint(square(4))");
  });

  it("uses untagged blocks when none is tagged with the language", () => {
    expect(extractCode("Code:\n```\nprint(1)\n```", "python")).toBe("print(1)");
  });

  it("accepts JavaScript blocks for TypeScript", () => {
    expect(extractCode("```js\nconst a: number = 1;\n```", "typescript")).toBe("const a: number = 1;");
  });

  it("keeps code of an unclosed fence (a cut-off reply)", () => {
    expect(extractCode("```ts\nconst a = 1;\nconsole.log(a);", "typescript")).toBe("const a = 1;\nconsole.log(a);");
  });

  it("accepts tilde fences and CRLF line endings", () => {
    expect(extractCode("~~~js\r\nconsole.log(1);\r\n~~~\r\n", "javascript")).toBe("console.log(1);");
  });

  it("drops prose lines around unfenced code", () => {
    const reply = "Here is the code you asked for:\nfunction f(n) {\n  return n + 1;\n}\nconsole.log(f(1));\nThis prints the number two.";
    expect(extractCode(reply, "javascript")).toBe("function f(n) {\n  return n + 1;\n}\nconsole.log(f(1));");
  });

  it("returns a bare program unchanged (trimmed)", () => {
    expect(extractCode("\nprint(sum(range(10)))\n", "python")).toBe("print(sum(range(10)))");
  });

  it("returns an empty string for a reply with no code at all", () => {
    expect(extractCode("I am sorry, I cannot help with that request.", "javascript")).toBe("");
  });

  it("ignores the thinking section of reasoning models", () => {
    const reply = "<think>\nMaybe:\n```js\nconsole.log('draft')\n```\nNo, better:\n</think>\n```js\nconsole.log('final')\n```";
    expect(extractCode(reply, "javascript")).toBe("console.log('final')");
  });
});

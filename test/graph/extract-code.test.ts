import { describe, expect, it } from "vitest";
import { extractCode, extractProgram, MAX_REPLY_CHARS } from "../../src/graph/extract-code.js";

const fence = "```";

describe("extractProgram: one program per reply", () => {
  it("takes the fenced block out of prose", () => {
    const reply = `Sure! Here is the program:\n\n${fence}javascript\nconst x = 2;\nconsole.log(x * 21);\n${fence}\n\nIt prints 42.`;
    expect(extractProgram(reply, "javascript")).toEqual({ ok: true, code: "const x = 2;\nconsole.log(x * 21);", from: "block", parses: true });
  });

  it("quotes the buggy line in one block and gives the fixed program in another: the program wins, nothing is joined", () => {
    const js = [
      "The bug is on this line, which subtracts instead of adding:",
      `${fence}js`,
      "  return a - b;",
      fence,
      "Here is the corrected program:",
      `${fence}js`,
      "function add(a, b) {",
      "  return a + b;",
      "}",
      "console.log(add(2, 3));",
      fence,
    ].join("\n");
    expect(extractCode(js, "javascript")).toBe("function add(a, b) {\n  return a + b;\n}\nconsole.log(add(2, 3));");
    // The other order: the program first, then the changed line alone (a top-level return does not parse).
    const reversed = [`${fence}javascript`, "function add(a, b) {", "  return a + b;", "}", fence, "The line I changed:", `${fence}javascript`, "return a + b;", fence].join("\n");
    expect(extractCode(reversed, "javascript")).toBe("function add(a, b) {\n  return a + b;\n}");
    const py = [
      "Your code had `return a - b`:",
      `${fence}python`,
      "    return a - b",
      fence,
      "Fixed:",
      `${fence}python`,
      "def add(a, b):",
      "    return a + b",
      fence,
      "The changed line:",
      `${fence}python`,
      "return a + b",
      fence,
    ].join("\n");
    expect(extractCode(py, "python")).toBe("def add(a, b):\n    return a + b");
  });

  it("takes the last complete block that parses: a draft then the final version", () => {
    const reply = `First try:\n${fence}ts\nconst a: number = 1\n${fence}\nBetter:\n${fence}ts\nconst a: number = 2;\nconsole.log(a);\n${fence}`;
    expect(extractCode(reply, "typescript")).toBe("const a: number = 2;\nconsole.log(a);");
  });

  it("never takes a bash block beside a python block, nor joins them", () => {
    const reply = [
      "Save this as main.py:",
      `${fence}python`,
      "def square(n):",
      "    return n * n",
      "",
      "print(square(4))",
      fence,
      "Run it with:",
      `${fence}bash`,
      "python main.py",
      fence,
    ].join("\n");
    expect(extractCode(reply, "python")).toBe("def square(n):\n    return n * n\n\nprint(square(4))");
    const bashOnly = extractProgram(`Run:\n${fence}bash\npython3 -c "print(1)"\n${fence}`, "python");
    expect(bashOnly).toEqual({ ok: false, reason: "the reply has no Python code block (its blocks: bash), and no untagged block parses as Python" });
  });

  it("never runs a >>> session or shell commands, and ignores output samples", () => {
    const reply = [
      `${fence}python`,
      "def double(x):",
      "    return 2 * x",
      "print(double(21))",
      fence,
      "Example:",
      `${fence}python`,
      ">>> double(21)",
      "42",
      fence,
      "Output:",
      `${fence}text`,
      "42",
      fence,
      `${fence}console`,
      "$ python3 main.py",
      "42",
      fence,
    ].join("\n");
    expect(extractCode(reply, "python")).toBe("def double(x):\n    return 2 * x\nprint(double(21))");
    const sessionOnly = extractProgram(`${fence}python\n>>> 1 + 1\n2\n${fence}`, "python");
    expect(sessionOnly).toEqual({ ok: false, reason: "the reply's Python blocks are not a program: they hold an interpreter session or shell commands (>>> or $ prompts)" });
    // An untagged output sample after the program is not taken for JavaScript either.
    expect(extractCode(`${fence}js\nconsole.log(6 * 7)\n${fence}\nOutput:\n${fence}\n42\n${fence}`, "javascript")).toBe("console.log(6 * 7)");
  });

  it("says no program for prose only, an empty reply and empty blocks", () => {
    expect(extractProgram("I am sorry, I cannot help with that request.", "javascript")).toEqual({
      ok: false,
      reason: "the reply is prose only: it has no code block and no code",
    });
    expect(extractProgram("   ", "python")).toEqual({ ok: false, reason: "the reply is empty" });
    expect(extractProgram(`Here it is:\n${fence}js\n${fence}`, "javascript")).toEqual({ ok: false, reason: "the reply's JavaScript code blocks are empty" });
    expect(extractCode("I am sorry, I cannot help with that request.", "javascript")).toBe("");
  });

  it("keeps an unterminated block (a cut-off reply) when it parses, after any complete one", () => {
    expect(extractProgram(`${fence}ts\nconst a = 1;\nconsole.log(a);`, "typescript")).toEqual({
      ok: true,
      code: "const a = 1;\nconsole.log(a);",
      from: "unterminated block",
      parses: true,
    });
    const cut = `${fence}js\nconsole.log("whole");\n${fence}\nAnd a longer version:\n${fence}js\nfunction f() {\n  console.log(`;
    expect(extractCode(cut, "javascript")).toBe('console.log("whole");');
  });

  it("hands a block of the language that does not parse to the check, so the model hears the syntax error", () => {
    expect(extractProgram(`${fence}js\nconsole.log((1 + 2);\n${fence}`, "javascript")).toEqual({ ok: true, code: "console.log((1 + 2);", from: "block", parses: false });
  });

  it("with several languages, takes only the target's: TypeScript also takes JavaScript blocks", () => {
    const reply = [`${fence}python`, "print(1)", fence, `${fence}js`, "console.log(1);", fence, `${fence}ruby`, "puts 1", fence].join("\n");
    expect(extractCode(reply, "python")).toBe("print(1)");
    expect(extractCode(reply, "javascript")).toBe("console.log(1);");
    expect(extractCode(reply, "typescript")).toBe("console.log(1);");
    expect(extractProgram(`${fence}ts\nconst a: number = 1;\n${fence}`, "javascript").ok).toBe(false);
  });

  it("takes an untagged block only when it parses as the target language", () => {
    expect(extractCode(`Code:\n${fence}\nprint(1)\n${fence}`, "python")).toBe("print(1)");
    expect(extractProgram(`Code:\n${fence}\nconst x = 1;\nconsole.log(x);\n${fence}`, "python").ok).toBe(false);
    expect(extractCode(`Code:\n${fence}\nconst x = 1;\nconsole.log(x);\n${fence}`, "javascript")).toBe("const x = 1;\nconsole.log(x);");
    expect(extractProgram(`${fence}\nfor i in range(3):\n    print(i)\n${fence}`, "javascript").ok).toBe(false);
  });

  it("accepts language aliases, tilde fences and CRLF line endings", () => {
    expect(extractCode("~~~mjs\r\nconsole.log(1);\r\n~~~\r\n", "javascript")).toBe("console.log(1);");
    expect(extractCode(`${fence}python3\nprint(2)\n${fence}`, "python")).toBe("print(2)");
    expect(extractCode(`${fence}typescript\nlet n: number = 3;\n${fence}`, "typescript")).toBe("let n: number = 3;");
  });

  it("uses an unfenced reply when it parses, dropping prose lines around it", () => {
    const reply = "Here is the code you asked for:\nfunction f(n) {\n  return n + 1;\n}\nconsole.log(f(1));\nThis prints the number two.";
    expect(extractProgram(reply, "javascript")).toEqual({ ok: true, code: "function f(n) {\n  return n + 1;\n}\nconsole.log(f(1));", from: "reply", parses: true });
    expect(extractCode("\nprint(sum(range(10)))\n", "python")).toBe("print(sum(range(10)))");
    expect(extractProgram("the answer is: 42 apples, roughly", "javascript").ok).toBe(false);
    // Raw code that does not parse goes to the check, which names the line (SDK backends reply with raw code).
    expect(extractProgram("function add(a, b) { return a + ; }", "javascript")).toEqual({ ok: true, code: "function add(a, b) { return a + ; }", from: "reply", parses: false });
  });

  it("ignores the thinking section of reasoning models", () => {
    const reply = `<think>\nMaybe:\n${fence}js\nconsole.log('draft')\n${fence}\nNo, better:\n</think>\n${fence}js\nconsole.log('final')\n${fence}`;
    expect(extractCode(reply, "javascript")).toBe("console.log('final')");
  });

  it("keeps a forbidden import, so the check can name it", () => {
    expect(extractCode(`${fence}js\nimport fs from "node:fs";\nconsole.log(fs);\n${fence}`, "javascript")).toBe('import fs from "node:fs";\nconsole.log(fs);');
  });
});

describe("extractProgram: what blocks are", () => {
  it("joins a definition block with the block that uses it, and the caller's tests count as a use", () => {
    const reply = `Here's the function:\n${fence}python\ndef square(n):\n    return n * n\n${fence}\nExample usage:\n${fence}python\nprint(square(4))\n${fence}`;
    expect(extractProgram(reply, "python")).toEqual({ ok: true, code: "def square(n):\n    return n * n\n\nprint(square(4))", from: "joined blocks", parses: true });
    // The last block defines what it uses: an alternative, not a continuation.
    const alternatives = `${fence}python\ndef f():\n    return 1\nprint(f())\n${fence}\nOr:\n${fence}python\ndef f():\n    return 2\nprint(f())\n${fence}`;
    expect(extractCode(alternatives, "python")).toBe("def f():\n    return 2\nprint(f())");
    // A block that defines and prints is joined only when something later needs its names.
    const helper = `${fence}python\nLIMIT = 3\nprint('limit set')\n${fence}\n${fence}python\nprint(list(range(5)))\n${fence}`;
    expect(extractCode(helper, "python")).toBe("print(list(range(5)))");
    expect(extractCode(helper, "python", { tests: "assert LIMIT == 3" })).toBe("LIMIT = 3\nprint('limit set')\n\nprint(list(range(5)))");
    expect(extractCode(helper, "python", { requiredNames: ["LIMIT"] })).toBe("LIMIT = 3\nprint('limit set')\n\nprint(list(range(5)))");
  });

  it("keeps a docstring's doctest as part of the code, and never takes printed output for the program", () => {
    const doctest = `${fence}python\ndef double(x):\n    """\n    >>> double(2)\n    4\n    """\n    return 2 * x\n\nprint(double(21))\n${fence}`;
    expect(extractProgram(doctest, "python")).toMatchObject({ ok: true, from: "block", parses: true });
    expect(extractProgram(`${fence}python\n3628800\n${fence}`, "python")).toEqual({ ok: false, reason: "the reply's Python blocks are not a program: they hold printed output (3628800)" });
    expect(extractProgram("3628800", "python")).toEqual({ ok: false, reason: "the reply is only a value (3628800), not a program that computes it" });
    expect(extractProgram(`${fence}js\n[ 2, 4, 6 ]\n${fence}`, "javascript").ok).toBe(false);
    // After "Output:", a block that defines, assigns and prints nothing is output, even when it parses.
    const sample = `${fence}python\nfrom collections import Counter\nprint(Counter('aab'))\n${fence}\nOutput:\n${fence}python\nCounter({'a': 2, 'b': 1})\n${fence}`;
    expect(extractCode(sample, "python")).toBe("from collections import Counter\nprint(Counter('aab'))");
  });

  it("removes CommonJS boilerplate from JavaScript and TypeScript, keeping line numbers", () => {
    const code = "function f() {\n  return 1;\n}\nif (require.main === module) {\n  console.log(f());\n}\nmodule.exports = {\n  f,\n};";
    expect(extractCode(fence + "js\n" + code + "\n" + fence, "javascript")).toBe(
      "function f() {\n  return 1;\n}\nif (true /* require.main === module: the sandbox runs this as the main program */) {\n  console.log(f());\n}\n// module.exports removed: the sandbox runs the program without modules",
    );
    expect(extractCode(fence + "ts\nconst n: number = 1;\nexports.n = n;\n" + fence, "typescript")).toBe("const n: number = 1;\n// module.exports removed: the sandbox runs the program without modules");
  });

  it("reads hostile replies in time linear in their length, and refuses replies over the bound", () => {
    const long = [
      `${fence}js\n${" \n".repeat(200_000)}x\n${fence}`,
      `${fence}python\nx = [${"a for ".repeat(100_000)}]\n${fence}`,
      `${fence}ts\n${"/* `".repeat(100_000)}\n${fence}`,
      `${"output ".repeat(60_000)}:\n${fence}python\nprint(1)\n${fence}`,
      Array.from({ length: 2000 }, (_, i) => `${fence}python\ndef f${i}():\n    return f${i + 1}()\n${fence}`).join("\n"),
      // A tree acorn builds but too deep to walk recursively: read, not thrown.
      `${fence}js\n1${"+1".repeat(4000)}\n${fence}`,
    ];
    for (const reply of long) for (const language of ["python", "javascript", "typescript"] as const) extractProgram(reply, language);
    expect(extractProgram("x".repeat(MAX_REPLY_CHARS + 1), "python")).toEqual({ ok: false, reason: `the reply is ${MAX_REPLY_CHARS + 1} characters long, more than the ${MAX_REPLY_CHARS} a program is read from` });
  }, 30_000);
});

import { afterAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { createCodeGenGraph } from "../../src/graph/index.js";
import { defaultPrompts, resolvePrompts } from "../../src/graph/prompts.js";
import { renderTemplate } from "../../src/prompts/templates.js";
import { InvalidOptionError } from "../../src/errors.js";
import { disposeDefaultSandbox } from "../../src/sandbox/index.js";
import { fence, scriptedModel } from "../support/scripted-model.js";

afterAll(async () => {
  await disposeDefaultSandbox();
});

describe("prompts", () => {
  it("loads the prompt files once and tells the model how results are read and what is missing", () => {
    const prompts = defaultPrompts();
    expect(defaultPrompts()).toBe(prompts);
    expect(prompts.system.javascript).toMatch(/console\.log/);
    expect(prompts.system.javascript).toMatch(/export default/);
    expect(prompts.system.javascript).toMatch(/No npm packages/);
    expect(prompts.system.typescript).toMatch(/types are checked and stripped/);
    expect(prompts.system.python).toMatch(/print\(/);
    expect(prompts.system.python).toMatch(/No pip packages/);
    expect(prompts.refine).toContain("{{numberedCode}}");
  });

  it("finds the prompts from the compiled package too", async () => {
    const script = 'import("./dist/src/graph/prompts.js").then((m) => process.stdout.write(String(m.defaultPrompts().task.includes("{{task}}"))))';
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile("node", ["-e", script], (error, out) => (error ? reject(error) : resolve(out))),
    );
    expect(stdout).toBe("true");
  });

  it("applies overrides and rejects empty ones", () => {
    const prompts = resolvePrompts({ system: { python: "Only Python." }, task: "Do: {{task}}" });
    expect(prompts.system.python).toBe("Only Python.");
    expect(prompts.system.javascript).toBe(defaultPrompts().system.javascript);
    expect(prompts.task).toBe("Do: {{task}}");
    expect(() => resolvePrompts({ refine: " " })).toThrow(InvalidOptionError);
  });

  it("fills known placeholders and leaves others", () => {
    expect(renderTemplate("{{a}} and {{b}}", { a: "1" })).toBe("1 and {{b}}");
  });

  it("sends overridden prompts to the model", async () => {
    const seen: string[] = [];
    const model = scriptedModel(fence("js", "console.log(1)"));
    const graph = createCodeGenGraph({ model, prompts: { system: { javascript: "SYSTEM OVERRIDE" }, task: "TASK={{task}} LANG={{language}}" } });
    await graph.invoke(
      { task: "print one" },
      { callbacks: [{ handleChatModelStart: (_llm: unknown, messages: { content: unknown }[][]) => void seen.push(...messages[0].map((m) => String(m.content))) }] },
    );
    expect(seen).toEqual(["SYSTEM OVERRIDE", "TASK=print one LANG=JavaScript"]);
  });
});

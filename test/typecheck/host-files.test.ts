/**
 * The checked code is a guest's, and TypeScript resolves the paths it names: the checker's
 * compiler host must not read the host's disk for them (only TypeScript's own library files).
 * Found through the deepagents sandbox's `tsc`: `typeof import("/abs/host/file")` typed a host
 * file's exports, and a missing or present path gave different errors.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkTypes } from "../../src/typecheck/check-types.js";

const dir = mkdtempSync(join(tmpdir(), "cs-typecheck-host-"));
const secret = join(dir, "secret").replaceAll("\\", "/");
writeFileSync(`${secret}.ts`, 'export const apiKey: "sk-host-secret" = "sk-host-secret";\nexport interface Hidden { token: string }\n');
writeFileSync(`${secret}.d.ts`, 'export declare const apiKey: "sk-host-secret";\n');

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("checkTypes and the host's files", () => {
  it("resolves no import, type import or reference to a host file; a present and a missing path answer alike", async () => {
    const probes = [
      `const k: number = null as any as typeof import("${secret}")["apiKey"];`,
      `import { apiKey } from "${secret}";\nconst k: number = apiKey;`,
      `/// <reference path="${secret}.ts" />\nconst k: number = apiKey;`,
      `import type { Hidden } from "${secret}.js";\nconst h: Hidden = { token: 1 };`,
    ];
    for (const code of probes) {
      const result = await checkTypes(code);
      const text = JSON.stringify(result);
      expect(text, code).not.toContain("sk-host-secret");
      expect(text, code).not.toContain("token");
      const missing = await checkTypes(code.replaceAll(secret, `${dir}/no-such-file`.replaceAll("\\", "/")));
      const codes = (r: typeof result) => (r.ok ? [] : r.diagnostics.map((d) => d.code));
      expect(codes(result), code).toEqual(codes(missing));
    }
  }, 60_000);

  it("still reads TypeScript's own library files", async () => {
    expect(await checkTypes("const m = new Map<string, number>();\nconst x: string | undefined = ['a'].at(0);\nconst p: Promise<number> = Promise.resolve(1);")).toMatchObject({ ok: true });
  }, 60_000);
});

/**
 * Opt-in: numpy, pandas and matplotlib from Pyodide's own package index, computed with and
 * plotted, the chart back as a PNG file and as an image content block. Runs only where
 * `CODEGEN_TEST_PYODIDE_INDEX` names a reachable index (Pyodide's CDN for the installed version,
 * https://cdn.jsdelivr.net/pyodide/v314.0.7/full/, or a folder holding a copy of the
 * distribution); without it the suite reports itself as not run.
 */
import { ToolMessage } from "@langchain/core/messages";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox, type SandboxWithStats } from "../../../src/sandbox/sandbox.js";
import { createCodeInterpreterTool } from "../../../src/tools/code-interpreter-tool.js";

const index = process.env.CODEGEN_TEST_PYODIDE_INDEX;
const title = index
  ? `numpy + pandas + matplotlib from ${index}`
  : "numpy + pandas + matplotlib from Pyodide's index: NOT RUN (set CODEGEN_TEST_PYODIDE_INDEX to the index URL or a folder with a copy of Pyodide 314.0.7's distribution)";

describe.runIf(index !== undefined && index !== "")(title, { timeout: 600_000 }, () => {
  let sandbox: SandboxWithStats;
  beforeAll(async () => {
    sandbox = createSandbox({ poolSize: 1, python: { packages: ["numpy", "pandas", "matplotlib"], packageIndex: index! } });
    await sandbox.warm(["python"]);
  }, 900_000);
  afterAll(() => sandbox?.dispose());

  it("computes with numpy and pandas", async () => {
    const r = await sandbox.run(
      "import numpy as np, pandas as pd\ndf = pd.DataFrame({'k': ['a', 'b', 'a'], 'v': np.arange(3.0)})\n[float(np.linalg.norm([3, 4])), df.groupby('k')['v'].sum().to_dict()]",
      { language: "python", memoryLimitBytes: 256 * 1024 * 1024 },
    );
    expect(r.status, r.error?.message).toBe("success");
    expect(r.result).toEqual([5, { a: 2, b: 1 }]);
  });

  it("plots: plt.show() saves a PNG under images/, returned as a file and an image block", async () => {
    const code = "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3], [1, 4, 9])\nplt.title('squares')\nplt.show()\nimport matplotlib\nmatplotlib.get_backend()";
    const r = await sandbox.run(code, { language: "python", files: {}, memoryLimitBytes: 256 * 1024 * 1024 });
    expect(r.status, r.error?.message).toBe("success");
    expect(String(r.result).toLowerCase()).toBe("agg");
    const png = r.files?.["images/figure-1.png"];
    expect(png).toBeDefined();
    expect([...png!.subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    const interpreter = createCodeInterpreterTool({ sandbox, images: "content", memoryLimitBytes: 256 * 1024 * 1024, timeoutMs: 60_000 });
    const message = (await interpreter.invoke({ name: "execute_code", args: { code, language: "python" }, id: "call_plot", type: "tool_call" })) as ToolMessage;
    const blocks = message.content as Array<{ type: string; mimeType?: string }>;
    expect(blocks.some((b) => b.type === "image" && b.mimeType === "image/png")).toBe(true);
  });
});

/**
 * Bench section "tool-results": what tools called from code cost the host.
 * - Peak RSS of the host process while a tool returning 50 MB is called 6 times per cell from
 *   JavaScript and from Python (refused at the 1 MiB cap), beside the same calls of a tool that
 *   returns 100 bytes; each in a child process of its own (goal from issue 21: ≤ 2 × the caps
 *   + 64 MiB above the peak before).
 * - The time of one tool call from code (JavaScript, a tool that returns at once), beside the same
 *   tool invoked directly.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { createSandbox } from "../src/sandbox/index.js";
import { createCodeInterpreterTool, disposeCodeInterpreterTool, type ExecuteCodeArtifact } from "../src/tools/code-interpreter-tool.js";
import { DEFAULT_MAX_CELL_RECORD_BYTES, DEFAULT_MAX_HOST_RESULT_BYTES } from "../src/code-mode/replay/host-call-log.js";
import { ms, percentiles, type BenchRow, type BenchSection } from "./table.js";

const MiB = 1024 * 1024;
const fixture = fileURLToPath(new URL("../../test/code-mode/fixtures/huge-tool-result.mjs", import.meta.url));

async function peakGrowth(mode: "huge" | "small"): Promise<number> {
  const child = spawn(process.execPath, [fixture, mode], { stdio: ["ignore", "pipe", "inherit"] });
  let stdout = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  if (code !== 0) throw new Error(`the ${mode} tool-result child exited with ${code}`);
  const report = JSON.parse(stdout) as { peakBeforeBytes: number; peakAfterBytes: number };
  return report.peakAfterBytes - report.peakBeforeBytes;
}

async function callLatency(): Promise<{ fromCode: number[]; direct: number[] }> {
  const ping = tool(async ({ n }) => n + 1, { name: "ping", description: "Adds one.", schema: z.object({ n: z.number() }) });
  const sandbox = createSandbox({ poolSize: 1 });
  const codeTool = createCodeInterpreterTool({ sandbox, tools: [ping], languages: ["javascript"], timeoutMs: 60_000 });
  const CALLS = 200;
  const code = `const t = []; for (let i = 0; i < ${CALLS}; i++) { const s = Date.now(); await tools.ping({ n: i }); t.push(Date.now() - s); } t.length`;
  const fromCode: number[] = [];
  for (let round = 0; round < 3; round++) {
    const started = performance.now();
    const message = (await codeTool.invoke({ name: "execute_code", args: { language: "javascript", code }, id: `b${round}`, type: "tool_call" })) as { artifact: ExecuteCodeArtifact };
    if (message.artifact.result.status !== "success") throw new Error(`bench cell failed: ${message.artifact.result.error?.message}`);
    fromCode.push((performance.now() - started) / CALLS);
  }
  const direct: number[] = [];
  for (let round = 0; round < 3; round++) {
    const started = performance.now();
    for (let i = 0; i < CALLS; i++) await ping.invoke({ n: i });
    direct.push((performance.now() - started) / CALLS);
  }
  await disposeCodeInterpreterTool(codeTool);
  await sandbox.dispose();
  return { fromCode, direct };
}

const section: BenchSection = async () => {
  const huge = await peakGrowth("huge");
  const small = await peakGrowth("small");
  const bound = 2 * (DEFAULT_MAX_HOST_RESULT_BYTES + DEFAULT_MAX_CELL_RECORD_BYTES) + 64 * MiB;
  const latency = await callLatency();
  const rows: BenchRow[] = [
    {
      section: "tool-results",
      metric: "host peak RSS growth: a 50 MB tool result ×6 per cell, JS + Python",
      ours: `${(huge / MiB).toFixed(1)} MiB`,
      baseline: `${(small / MiB).toFixed(1)} MiB`,
      baselineName: "the same calls, 100-byte result",
      goal: `<= ${(bound / MiB).toFixed(0)} MiB (2 × caps + 64 MiB)`,
      met: huge <= bound,
    },
    {
      section: "tool-results",
      metric: "one tool call from code (JavaScript, trivial tool), per call",
      ours: `${ms(percentiles(latency.fromCode).p50)} p50 of 3 × 200`,
      baseline: `${ms(percentiles(latency.direct).p50)} p50 of 3 × 200`,
      baselineName: "tool.invoke() directly",
    },
  ];
  return rows;
};

export default section;

/**
 * Entry points: how long `import("codegen-sandbox")` takes in a fresh process, beside the
 * `codegen-sandbox/graph` entry (which loads LangChain and LangGraph) as the baseline.
 * Goal from issue 11: the root imports in 50 ms or less.
 */
import { fileURLToPath } from "node:url";
import { probeImport, langChainUrls } from "./import-probe.js";
import { ms, percentiles, type BenchRow, type BenchSection } from "./table.js";

const packageRoot = fileURLToPath(new URL("../../", import.meta.url));
const RUNS = 9;

async function timeImport(specifier: string) {
  const times: number[] = [];
  const cpuTimes: number[] = [];
  let modules = 0;
  let langChain = 0;
  for (let i = 0; i < RUNS; i++) {
    const probe = await probeImport(specifier, packageRoot);
    times.push(probe.importMs);
    cpuTimes.push(probe.importCpuMs);
    modules = probe.resolvedUrls.length;
    langChain = langChainUrls(probe.resolvedUrls).length;
  }
  return { p50: percentiles(times).p50, cpuP50: percentiles(cpuTimes).p50, modules, langChain };
}

const section: BenchSection = async () => {
  const root = await timeImport("codegen-sandbox");
  const graph = await timeImport("codegen-sandbox/graph");
  const describe = (t: { p50: number; cpuP50: number; modules: number; langChain: number }) =>
    `${ms(t.p50)} p50, CPU ${ms(t.cpuP50)} (${t.modules} modules, ${t.langChain} LangChain)`;
  const rows: BenchRow[] = [
    {
      section: "entry",
      metric: `import("codegen-sandbox"), fresh process, ${RUNS} runs`,
      ours: describe(root),
      baseline: describe(graph),
      baselineName: `import("codegen-sandbox/graph")`,
      goal: "<= 50 ms",
      met: root.p50 <= 50,
    },
  ];
  return rows;
};

export default section;

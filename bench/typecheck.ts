/**
 * Bench section "typecheck": one warm type check of a 50-line TypeScript program (the checker
 * is started once, then each sample checks a slightly different program, as a refine loop does).
 * Baseline in the same run: sucrase stripping the same program's types (what runs anyway).
 */
import { transform } from "sucrase";
import { checkTypes } from "../src/typecheck/check-types.js";
import { ms, percentiles, type BenchRow, type BenchSection } from "./table.js";

/** Goal of the issue: a warm check of a 50-line program. */
const GOAL_P50_MS = 150;
const SAMPLES = 60;

function program(variant: number): string {
  const lines: string[] = [];
  for (let i = 0; i < 10; i++) {
    lines.push(
      `function step${i}(values: number[], factor: number): number {`,
      `  const scaled = values.map((v) => v * factor + ${variant});`,
      `  return scaled.reduce((sum, v) => sum + v, 0);`,
      `}`,
      `console.log(step${i}([1, 2, 3], ${i}));`,
    );
  }
  return lines.join("\n");
}

const section: BenchSection = async (): Promise<BenchRow[]> => {
  const coldStarted = performance.now();
  const first = await checkTypes(program(-1));
  const coldMs = performance.now() - coldStarted;
  if (!first.ok) throw new Error(`bench program does not type-check: ${JSON.stringify(first.diagnostics)}`);
  const warm: number[] = [];
  const strip: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const code = program(i);
    let started = performance.now();
    await checkTypes(code);
    warm.push(performance.now() - started);
    started = performance.now();
    transform(code, { transforms: ["typescript"], disableESTransforms: true });
    strip.push(performance.now() - started);
  }
  const w = percentiles(warm);
  const s = percentiles(strip);
  return [
    {
      section: "typecheck",
      metric: "type check, 50-line program (warm)",
      ours: `${ms(w.p50)} p50 / ${ms(w.p95)} p95`,
      baseline: `${ms(s.p50)} p50 / ${ms(s.p95)} p95`,
      baselineName: "sucrase type stripping only",
      goal: `<= ${GOAL_P50_MS} ms p50`,
      met: w.p50 <= GOAL_P50_MS,
    },
    {
      section: "typecheck",
      metric: "first check (loads typescript and its library)",
      ours: ms(coldMs),
    },
  ];
};

export default section;

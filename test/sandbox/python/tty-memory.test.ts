/**
 * /dev/tty without a newline: the terminal's line buffer holds at most 4 KiB before it is written
 * into the run's counted stdout (worker.ts, tameTerminals), so 256 KiB a run cannot pile up in
 * the pool's process. Opening the device marks the run impure, so its worker is replaced; the
 * process's resident memory is measured over runs against a bound (it stays near what a run
 * that writes a file costs, which replaces its worker the same way).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { denoChildren, options, useWarmPythonEngine } from "./support.js";

const engine = useWarmPythonEngine();

function denoRssMiB(): number {
  let kib = 0;
  for (const pid of denoChildren()) {
    try {
      kib += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
    } catch {
      // Gone meanwhile.
    }
  }
  return kib / 1024;
}

describe("/dev/tty without a newline", { timeout: 300_000 }, () => {
  it("256 KiB a run reaches the run's stdout whole and does not grow the pool process past its bound", async () => {
    const flood = "import os\nfd = os.open('/dev/tty', os.O_WRONLY)\nos.write(fd, b'y' * 262144)\nos.close(fd)";
    let peak = 0;
    for (let i = 0; i < 8; i++) {
      const r = await engine.run(flood, options({ maxOutputBytes: 1024 * 1024 }));
      expect(r.status).toBe("success");
      expect(r.stdout.length).toBe(262144);
      peak = Math.max(peak, denoRssMiB());
    }
    // Measured: ~170 MiB idle, 300-440 MiB over runs that each replace their worker (a file
    // write costs the same); a buffer that kept every run's bytes would add 256 KiB × runs of
    // JavaScript arrays of numbers (~8 bytes a byte) on top.
    expect(peak).toBeLessThan(700);
    const capped = await engine.run(flood, options({ maxOutputBytes: 64 * 1024 }));
    expect(capped.status).toBe("output_limit");
    expect(capped.stdout.length).toBeLessThanOrEqual(64 * 1024);
  });
});

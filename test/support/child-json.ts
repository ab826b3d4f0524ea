/**
 * Runs a Node script in a child process (cwd: the repository, only PATH in its environment) and
 * gives the JSON of the last line it printed; a non-zero exit is an error with its stderr's end.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));

export async function lastJsonLineOf<T>(script: string, args: string[]): Promise<T> {
  const child = spawn(process.execPath, [script, ...args], { cwd: root, env: { PATH: process.env.PATH } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exitCode = await new Promise<number | null>((resolve) => child.on("close", resolve));
  if (exitCode !== 0) throw new Error(`${script} exited with ${exitCode}: ${stderr.slice(-2000)}`);
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as T;
}

/** A subcommand: takes its own argv (after the subcommand name), returns the exit code. */
export interface Command {
  summary: string;
  run(argv: string[]): Promise<number>;
}

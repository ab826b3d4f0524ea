/** A subcommand: takes its own argv (after the subcommand name), returns the exit code. */
export interface Command {
  summary: string;
  /** The command's `--help` text (its usage line and every flag). */
  help: string;
  run(argv: string[]): Promise<number>;
}

import type { Command } from "commander";
import type { SessionSelection } from "../stages/selection.js";

/** The flags naming a part of a study, shared by agree, compare and stats. */
export interface SelectionFlags {
  sessions?: string;
  condition?: string;
  run?: string;
}

const list = (value: string | undefined): string[] | undefined =>
  value
    ?.split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);

/** Add --sessions, --condition and --run to a command. */
export function selectionOptions(command: Command): Command {
  return command
    .option("--sessions <ids>", "only these sessions (comma-separated ids), e.g. an evaluation part")
    .option("--condition <names>", "only sessions of these conditions (comma-separated)")
    .option("--run <ids>", "only sessions of these runs (comma-separated)");
}

export function selectionFrom(flags: SelectionFlags): SessionSelection {
  return { sessions: list(flags.sessions), conditions: list(flags.condition), runs: list(flags.run) };
}

import type { Command } from "commander";
import { studyArgument } from "./study-arg.js";
import { io, printJson } from "./io.js";
import { writing } from "./lock.js";
import { selectionFrom, selectionOptions, type SelectionFlags } from "./selection.js";

interface StatsFlags extends SelectionFlags {
  codebook?: string;
  coder?: string;
  json?: boolean;
}

/** `colloquy stats <study>`: session metrics, participation, Bales profiles/phases/transitions, sequences. */
export function registerStats(program: Command): void {
  selectionOptions(program.command("stats"))
    .description("session metrics, participation balance, who-follows-whom, Bales profiles, ratios, phases, transitions and code sequences")
    .addArgument(studyArgument())
    .option("--codebook <id>", "nominal codebook for the Bales and sequence parts (default: the first colloquy.json lists that has codes)")
    .option("--coder <id>", "whose codes (rules, llm, human:<name>); needed when several coders exist")
    .option("--json", "print the report as JSON")
    .action(async (study: string, flags: StatsFlags) =>
      writing(study, "stats", async () => {
        const { statsSummary } = await import("../analysis/stats/output.js");
        const { openStudy } = await import("../stages/context.js");
        const { runStats } = await import("../stages/stats.js");
        const { report, files } = await runStats(
          await openStudy(study),
          { codebook: flags.codebook, coder: flags.coder, selection: selectionFrom(flags) },
          io().reporter(),
        );
        if (flags.json) printJson(report);
        else {
          io().out(statsSummary(report));
          io().out(`\nWrote ${files.json}, ${files.sessions}, ${files.participants}`);
        }
      }),
    );
}

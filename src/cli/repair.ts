import type { Command } from "commander";
import { studyArgument } from "./study-arg.js";
import { describeRepair } from "../util/fs.js";
import { io, printJson } from "./io.js";
import { writing } from "./lock.js";

/** `colloquy repair <study>`: move unreadable bytes out of the study's codes files, keeping every record. */
export function registerRepair(program: Command): void {
  program
    .command("repair")
    .description(
      "make a study's codes files readable again after a crash: unreadable bytes move to a .torn file next to each file, every complete record stays",
    )
    .addArgument(studyArgument())
    .option("--dry-run", "say what would be moved, change nothing")
    .option("--json", "print the summary as JSON")
    .action(async (study: string, flags: { dryRun?: boolean; json?: boolean }) => {
      const { openStudy } = await import("../stages/context.js");
      const { runRepair } = await import("../stages/repair.js");
      const run = async () => {
        const context = await openStudy(study);
        const summary = await runRepair(context, { dryRun: flags.dryRun }, io().reporter());
        if (flags.json) return printJson(summary);
        for (const repair of summary.repairs) {
          const line = describeRepair(repair, context.paths.root);
          io().out(flags.dryRun ? line.replace("were moved", "would be moved").replace("were kept", "would be kept") : line);
        }
        if (summary.repairs.length === 0) io().out(`${study}: all ${summary.checked} codes file(s) are readable; nothing to repair`);
        else if (flags.dryRun) io().out(`${study}: ${summary.repairs.length} of ${summary.checked} codes file(s) need repair; run without --dry-run to do it`);
        else io().out(`${study}: ${summary.repairs.length} of ${summary.checked} codes file(s) were repaired`);
      };
      return flags.dryRun ? run() : writing(study, "repair", run);
    });
}

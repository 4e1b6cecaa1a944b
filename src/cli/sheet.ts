import type { Command } from "commander";
import { studyArgument } from "./study-arg.js";
import { parseContext } from "../coding/llm/prompt.js";
import { CliError, errorMessage } from "../util/errors.js";
import { io, printJson } from "./io.js";
import { writeOutput } from "./output.js";
import { selectionFrom, selectionOptions, type SelectionFlags } from "./selection.js";

interface SheetFlags extends SelectionFlags {
  codebook?: string;
  sample?: string;
  coders?: string;
  context: string;
  excel?: boolean;
  out: string;
  json?: boolean;
}

/** `colloquy sheet <study>`: a coding sheet for people (one row per turn) and the codebook's legend. */
export function registerSheet(program: Command): void {
  selectionOptions(program.command("sheet"))
    .description(
      "write a coding sheet for human coders: one row per codeable turn with context, fingerprint and an empty code column per coder, plus the codebook's legend",
    )
    .addArgument(studyArgument())
    .option("--codebook <id>", "codebook id or file (default: the first colloquy.json lists)")
    .option("--sample <file>", "only the turns of a sample made by `colloquy sample`")
    .option("--coders <list>", "one empty code column per coder, e.g. alice,bob (default: colloquy.json humanCoders)")
    .option("--context <n>", "turns shown before and after each turn, e.g. 2 or 3:1", "2")
    .option("--excel", "start the CSV files with a UTF-8 byte-order mark so Excel reads accents correctly")
    .requiredOption("--out <file>", "the sheet (CSV); the legend is written to <file without .csv>.legend.csv")
    .option("--json", "print the summary as JSON")
    .addHelpText(
      "after",
      `
Examples:
  colloquy sheet my-study --codebook bales-ipa --sample sample.csv --coders alice,bob --excel --out sheet.csv
  colloquy sheet my-study --codebook pragmatic-style --sessions s1,s2 --coders alice --context 0 --out style.csv
Then fill in code_alice (and code_bob) and read them back with
  colloquy codes import sheet.csv --study my-study --codebook bales-ipa --coder human:alice`,
    )
    .action(async (study: string, flags: SheetFlags) => {
      const { openStudy } = await import("../stages/context.js");
      const { runSheet } = await import("../stages/sheet.js");
      let context;
      try {
        context = parseContext(flags.context);
      } catch (error) {
        throw new CliError(errorMessage(error));
      }
      const coders = flags.coders
        ?.split(",")
        .map((c) => c.trim())
        .filter(Boolean);
      const opened = await openStudy(study);
      const {
        result: summary,
        streamed,
        say,
      } = await writeOutput(flags.out, (out) =>
        runSheet(
          opened,
          { codebook: flags.codebook, out, sample: flags.sample, selection: selectionFrom(flags), coders, context, excel: flags.excel },
          io().reporter(),
        ),
      );
      if (streamed)
        say(`${summary.rows} turn(s) to code went to ${flags.out} (fill in ${summary.codeColumns.join(", ")}); the legend is written only beside a sheet file`);
      else if (flags.json) printJson(summary);
      else {
        const skipped = Object.entries(summary.skipped)
          .map(([why, n]) => `${why} ${n}`)
          .join(", ");
        io().out(
          [
            `Wrote ${summary.rows} turn(s) to code to ${summary.sheet} (fill in ${summary.codeColumns.join(", ")})`,
            `and the codebook's legend to ${summary.legend}`,
            ...(skipped && !flags.sample ? [`not on the sheet (never coded): ${skipped}`] : []),
          ].join("\n"),
        );
      }
      for (const p of summary.sampleProblems) io().err(`${flags.sample}:${p.line}: ${p.problem}`);
      if (summary.sampleProblems.length > 0)
        throw new CliError(`${summary.sampleProblems.length} row(s) of ${flags.sample} are not on the sheet (listed above)`);
    });
}

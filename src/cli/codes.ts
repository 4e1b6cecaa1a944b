import type { Command } from "commander";
import { studyArgument } from "./study-arg.js";
import type { CodesImportSummary } from "../stages/codes-import.js";
import { CliError } from "../util/errors.js";
import { io, printJson } from "./io.js";
import { writing } from "./lock.js";

interface ImportFlags {
  codebook?: string;
  coder: string;
  column?: string[];
  sessionColumn?: string;
  turnColumn?: string;
  indexColumn?: string;
  fingerprintColumn?: string;
  json?: boolean;
}

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

function describe(summary: CodesImportSummary, listedLine: (coder: string) => string): string {
  const columns = Object.entries(summary.columns)
    .map(([what, column]) => (what === "codes" ? column : `${what}=${column}`))
    .join(", ");
  const lines = [
    `${summary.coder} / ${summary.codebook}: ${summary.stored} turn(s) coded from ${summary.file} (${columns})` +
      (summary.unchanged > 0 ? `, ${summary.unchanged} unchanged since the last import` : "") +
      (summary.removed > 0 ? `, ${summary.removed} code(s) it no longer gives removed` : "") +
      (summary.followed > 0 ? `, ${summary.followed} code(s) it gave before kept where their words moved` : ""),
    `rows ${summary.rows}: empty ${summary.empty} (skipped)` +
      (summary.emptyCells > 0 ? `, empty scale cells ${summary.emptyCells}` : "") +
      (summary.duplicates > 0 ? `, repeated rows ${summary.duplicates} (stored once)` : "") +
      `, not stored ${summary.problems.length}` +
      (summary.problems.length > 0
        ? ` (${Object.entries(summary.refused)
            .map(([kind, n]) => `${kind} ${n}`)
            .join(", ")})`
        : ""),
  ];
  if (summary.listed) lines.push(listedLine(summary.coder));
  return lines.join("\n");
}

/** `colloquy codes import`: a coder's codes from a filled coding sheet, attached to existing turns. */
export function registerCodes(program: Command): void {
  const codes = program.command("codes").description("human codes: import a filled coding sheet (see `colloquy sheet`)");
  codes
    .command("import")
    .description("attach one coder's codes from a filled coding sheet (or a column of any CSV/TSV with session and turn or index columns) to the study's turns")
    .argument("<file>", "the filled sheet (CSV or TSV; BOM, sep= line and ; delimiters are fine)")
    .addArgument(studyArgument())
    .option("--codebook <id>", "codebook id or file (default: the first colloquy.json lists)")
    .requiredOption("--coder <id>", "whose codes: human:<name> (a plain name means human:<name>)")
    .option("--column <name>", "the code column (default code_<name>); for scales one per scale, <scale>=<column> (repeat the flag)", collect)
    .option("--session-column <name>", "column with the session id (default: session)")
    .option("--turn-column <name>", "column with the turn id (default: turn)")
    .option("--index-column <name>", "column with the turn's 0-based index, when there is no turn id (default: index)")
    .option("--fingerprint-column <name>", "column with the turn fingerprint to check (default: fingerprint, when present)")
    .option("--json", "print the summary as JSON")
    .addHelpText(
      "after",
      `
Examples:
  colloquy codes import sheet.csv --study my-study --codebook bales-ipa --coder human:alice
  colloquy codes import ratings.tsv --study my-study --codebook pragmatic-style --coder human:bob \\
    --column sentiment=bob_sentiment --column formality=bob_formality
  colloquy codes import old-export.csv --study my-study --codebook bales-ipa --coder human:carol \\
    --column ipa --session-column conversation --index-column row

Rows whose turn changed since the sheet was made (fingerprint), unknown sessions, turns or labels,
and turns coded differently on two rows are reported by line and not stored; the command then
exits 1. Importing the same file again replaces the codes it gave last time, and only those.`,
    )
    .action(async (file: string, study: string, flags: ImportFlags) => {
      const { openStudy } = await import("../stages/context.js");
      const { runCodesImport } = await import("../stages/codes-import.js");
      const { listedLine } = await import("../stages/human-coders.js");
      const summary = await writing(study, "codes import", async () =>
        runCodesImport(
          await openStudy(study),
          {
            file,
            codebook: flags.codebook,
            coder: flags.coder,
            columns: flags.column,
            sessionColumn: flags.sessionColumn,
            turnColumn: flags.turnColumn,
            indexColumn: flags.indexColumn,
            fingerprintColumn: flags.fingerprintColumn,
          },
          io().reporter(),
        ),
      );
      if (flags.json) printJson(summary);
      else io().out(describe(summary, listedLine));
      for (const p of summary.problems) io().err(`${file}:${p.line}: ${p.message}`);
      if (summary.problems.length > 0) throw new CliError(`${summary.problems.length} row(s) of ${file} were not stored (listed above); the other codes were`);
    });
}

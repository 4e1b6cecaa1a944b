import type { Command } from "commander";
import { agreeCsv } from "../analysis/agree-csv.js";
import { formatAgreement } from "../analysis/agree-format.js";
import { disagreementsCsv, type AgreementReport } from "../analysis/agree.js";
import { openStudy } from "../stages/context.js";
import { runAgree } from "../stages/agree.js";
import type { MeasurementLevel } from "../analysis/reliability/krippendorff.js";
import { CliError } from "../util/errors.js";
import { writeFileAtomic, writeJsonAtomic } from "../util/fs.js";
import { io, printJson } from "./io.js";
import { writing } from "./lock.js";
import { selectionFrom, selectionOptions, type SelectionFlags } from "./selection.js";

interface AgreeFlags extends SelectionFlags {
  codebook?: string;
  coders?: string;
  reference?: string;
  seed: string;
  bootstrap: string;
  json?: boolean;
  csv?: string;
  raters?: string;
  level: string;
  out?: string;
}

const levels = ["nominal", "ordinal", "interval", "ratio"];

function integerFlag(value: string, flag: string, min: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new CliError(`${flag} must be an integer >= ${min} (got "${value}")`);
  return n;
}

function list(value: string): string[] {
  return value.split(",").map((s) => s.trim()).filter((s) => s.length > 0);
}

/** JSON for files and --json: undefined numbers (NaN) become null, which JSON.stringify already does. */
function emit(report: AgreementReport, flags: AgreeFlags, files?: { json: string; csv: string }): void {
  if (flags.json) printJson(report);
  else io().out(formatAgreement(report, files));
}

/** `colloquy agree`: inter-coder reliability between coders of a study, or between columns of a CSV. */
export function registerAgree(program: Command): void {
  selectionOptions(program.command("agree"))
    .description("inter-coder agreement: kappa, Krippendorff's alpha, AC1, confusion matrix, disagreements (study or CSV)")
    .argument("[study]", "study folder (omit with --csv)")
    .option("--codebook <id>", "codebook whose codes to compare (study mode)")
    .option("--coders <list>", "comma-separated coder ids, e.g. llm,human:alice (study mode)")
    .option("--csv <file>", "CSV with one column per rater (instead of a study)")
    .option("--raters <list>", "comma-separated CSV column names (with --csv)")
    .option("--level <level>", "measurement level for --csv: nominal | ordinal | interval | ratio", "nominal")
    .option("--reference <coder>", "reference coder for precision/recall (default: first human:* coder, else the first)")
    .option("--seed <n>", "seed of the bootstrap", "1")
    .option("--bootstrap <n>", "bootstrap replicates for the 95% CIs (0 = none)", "1000")
    .option("--out <file>", "with --csv: also write the JSON report here (and the disagreements CSV next to it)")
    .option("--json", "print the JSON report instead of the summary")
    .addHelpText(
      "after",
      `
Examples:
  colloquy agree my-study --codebook bales-ipa --coders llm,human:alice
  colloquy agree my-study --codebook pragmatic-style --coders llm,human:alice,human:bob --json
  colloquy agree my-study --codebook bales-ipa --coders rules,human:alice --condition control --run 3
  colloquy agree --csv ratings.csv --raters coder1,coder2,coder3 --level ordinal`,
    )
    .action(async (study: string | undefined, flags: AgreeFlags) => {
      const seed = integerFlag(flags.seed, "--seed", 0);
      const bootstrap = integerFlag(flags.bootstrap, "--bootstrap", 0);
      if (flags.csv) {
        if (study) throw new CliError("give either a study folder or --csv <file>, not both");
        if (flags.sessions || flags.condition || flags.run) throw new CliError("--sessions, --condition and --run select sessions of a study; with --csv, filter the CSV's rows instead");
        if (!flags.raters) throw new CliError("--csv needs --raters colA,colB[,...] naming the rater columns");
        if (!levels.includes(flags.level)) throw new CliError(`--level must be one of ${levels.join(", ")} (got "${flags.level}")`);
        const report = await agreeCsv({ file: flags.csv, raters: list(flags.raters), level: flags.level as MeasurementLevel, reference: flags.reference, seed, bootstrap });
        let files: { json: string; csv: string } | undefined;
        if (flags.out) {
          files = { json: flags.out, csv: flags.out.replace(/\.json$/i, "") + "-disagreements.csv" };
          await writeJsonAtomic(files.json, report);
          await writeFileAtomic(files.csv, disagreementsCsv(report));
        }
        emit(report, flags, files);
        return;
      }
      if (!study) throw new CliError("give a study folder (colloquy agree <study> --codebook <id> --coders A,B) or --csv <file> --raters A,B");
      if (!flags.codebook) throw new CliError("--codebook <id> is required: the codebook whose codes to compare (e.g. --codebook bales-ipa)");
      if (!flags.coders) throw new CliError("--coders A,B[,...] is required, e.g. --coders llm,human:alice");
      const options = { codebook: flags.codebook, coders: list(flags.coders), reference: flags.reference, seed, bootstrap, selection: selectionFrom(flags) };
      const { report, files } = await writing(study, "agree", async () => runAgree(await openStudy(study), options, io().reporter()));
      emit(report, flags, files);
    });
}

import type { Command } from "commander";
import { STDOUT, writeOutput } from "./output.js";
import { studyArgument } from "./study-arg.js";
import type { AgreementReport } from "../analysis/agreement/agree.js";
import type { AgreeCurve } from "../stages/agree-curve.js";
import type { MeasurementLevel } from "../analysis/reliability/krippendorff.js";
import { formatCurvePoint } from "./learning-curve.js";
import { CliError } from "../util/errors.js";
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
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
  learningCurve?: boolean;
  train?: string;
}

const levels = ["nominal", "ordinal", "interval", "ratio"];

function integerFlag(value: string, flag: string, min: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new CliError(`${flag} must be an integer >= ${min} (got "${value}")`);
  return n;
}

function list(value: string): string[] {
  return value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** JSON for files and --json: undefined numbers (NaN) become null, which JSON.stringify already does. */
async function emit(report: AgreementReport, flags: AgreeFlags, files?: { json: string; csv: string }): Promise<void> {
  if (flags.json) printJson(report);
  else io().out((await import("../analysis/agreement/format.js")).formatAgreement(report, files));
}

function printCurve(curve: AgreeCurve): void {
  const how =
    curve.method === "held-out"
      ? `trained on growing parts of ${curve.pool} turn(s) coded by ${curve.trainedOn.join(", ")} outside the selection; kappa against ${curve.reference} on its ${curve.evaluated} turn(s) in the selection`
      : `session-grouped cross-validation over ${curve.pool} turn(s) coded by ${curve.trainedOn.join(", ")}`;
  io().out(`\nlearning curve of ${curve.learner} (${how}):`);
  for (const p of curve.points) io().out(formatCurvePoint(p));
}

/** `colloquy agree`: inter-coder reliability between coders of a study, or between columns of a CSV. */
export function registerAgree(program: Command): void {
  selectionOptions(program.command("agree"))
    .description("inter-coder agreement: kappa, Krippendorff's alpha, AC1, confusion matrix, disagreements (study or CSV)")
    .addArgument(studyArgument({ description: "study folder (omit with --csv)", optional: true }))
    .option("--codebook <id>", "codebook whose codes to compare (study mode; default: the first colloquy.json lists that every coder named coded)")
    .option("--coders <list>", "comma-separated coder ids, e.g. llm,human:alice (study mode)")
    .option("--csv <file>", "CSV with one column per rater (instead of a study)")
    .option("--raters <list>", "comma-separated CSV column names (with --csv)")
    .option("--level <level>", "measurement level for --csv: nominal | ordinal | interval | ratio", "nominal")
    .option("--reference <coder>", "reference coder for precision/recall (default: first human:* coder, else the first)")
    .option("--seed <n>", "seed of the bootstrap", "1")
    .option("--bootstrap <n>", "bootstrap replicates for the 95% CIs (0 = none)", "1000")
    .option("--out <file>", "with --csv: also write the JSON report here (and the disagreements CSV next to it); - prints the JSON report")
    .option(
      "--learning-curve",
      "for a learned coder among --coders: agreement against the number of training turns (25, 50, 100, …); held out on the selected sessions when --sessions/--condition/--run is given, else cross-validated",
    )
    .option("--train <coders>", "with --learning-curve: the human coders to train on (default: those the learned coder was trained on)")
    .option("--json", "print the JSON report instead of the summary")
    .addHelpText(
      "after",
      `
Examples:
  colloquy agree my-study --codebook bales-ipa --coders llm,human:alice
  colloquy agree my-study --codebook pragmatic-style --coders llm,human:alice,human:bob --json
  colloquy agree my-study --codebook bales-ipa --coders rules,human:alice --condition control --run 3
  colloquy agree my-study --codebook bales-ipa --coders learned,human:alice --learning-curve --sessions s7,s8
  colloquy agree --csv ratings.csv --raters coder1,coder2,coder3 --level ordinal`,
    )
    .action(async (study: string | undefined, flags: AgreeFlags) => {
      const seed = integerFlag(flags.seed, "--seed", 0);
      const bootstrap = integerFlag(flags.bootstrap, "--bootstrap", 0);
      if (flags.csv) {
        const { agreeCsv } = await import("../analysis/agreement/csv.js");
        const { writeAgreementFiles } = await import("../stages/analysis-files.js");
        if (study) throw new CliError("give either a study folder or --csv <file>, not both");
        if (flags.sessions || flags.condition || flags.run)
          throw new CliError("--sessions, --condition and --run select sessions of a study; with --csv, filter the CSV's rows instead");
        if (!flags.raters) throw new CliError("--csv needs --raters colA,colB[,...] naming the rater columns");
        if (!levels.includes(flags.level)) throw new CliError(`--level must be one of ${levels.join(", ")} (got "${flags.level}")`);
        const file = resolve(flags.csv);
        let text: string;
        try {
          text = await readFile(file, "utf8");
        } catch (error) {
          throw new CliError(`${flags.csv}: cannot read (${(error as NodeJS.ErrnoException).code ?? error})`);
        }
        const report = agreeCsv({
          file,
          text,
          raters: list(flags.raters),
          level: flags.level as MeasurementLevel,
          reference: flags.reference,
          seed,
          bootstrap,
        });
        if (!flags.out) return emit(report, flags);
        const { result: files, streamed } = await writeOutput(flags.out, (out) =>
          writeAgreementFiles(report, { json: out, csv: out.replace(/\.json$/i, "") + "-disagreements.csv" }),
        );
        // On standard output the JSON report is the output (a summary would break it); the disagreements CSV is kept only beside a file.
        if (flags.out === STDOUT) return;
        await emit(report, flags, streamed ? undefined : files);
        return;
      }
      if (!study) throw new CliError("give a study folder (colloquy agree <study> --coders A,B [--codebook <id>]) or --csv <file> --raters A,B");
      if (!flags.coders) throw new CliError("--coders A,B[,...] is required, e.g. --coders llm,human:alice");
      const coders = list(flags.coders);
      if (flags.train && !flags.learningCurve) throw new CliError("--train goes with --learning-curve");
      const { openStudy } = await import("../stages/context.js");
      const { chosenCodebook } = await import("../stages/codebook-choice.js");
      const { runAgree } = await import("../stages/agree.js");
      const { agreeLearningCurve } = await import("../stages/agree-curve.js");
      const { report, files, curve } = await writing(study, "agree", async () => {
        const context = await openStudy(study);
        const codebook = (await chosenCodebook(context, flags.codebook, { command: "agree", coded: coders })).id;
        const options = { codebook, coders, reference: flags.reference, seed, bootstrap, selection: selectionFrom(flags) };
        // The curve first: a missing learned coder is said before any agreement is computed.
        const curve = flags.learningCurve ? await agreeLearningCurve(context, { ...options, train: flags.train ? list(flags.train) : undefined }) : undefined;
        return { ...(await runAgree(context, options, io().reporter())), curve };
      });
      if (flags.json) printJson(curve ? { ...report, learningCurve: curve } : report);
      else {
        await emit(report, flags, files);
        if (curve) printCurve(curve);
      }
    });
}

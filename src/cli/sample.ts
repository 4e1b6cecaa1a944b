import type { Command } from "commander";
import { studyArgument } from "./study-arg.js";
import { CliError } from "../util/errors.js";
import { oneOf } from "../util/did-you-mean.js";
import { io, printJson } from "./io.js";
import { writeOutput } from "./output.js";
import { selectionFrom, selectionOptions, type SelectionFlags } from "./selection.js";

interface SampleFlags extends SelectionFlags {
  size?: string;
  n?: string;
  stratify?: string;
  seed: string;
  out: string;
  json?: boolean;
  strategy: string;
  coder?: string;
  codebook?: string;
}

/** `colloquy sample <study>`: a reproducible (stratified) sample of codeable turns for double coding. */
export function registerSample(program: Command): void {
  selectionOptions(program.command("sample"))
    .description("draw a reproducible reliability sample of codeable turns (stratified, seeded) for double coding; `colloquy sheet --sample` reads it")
    .addArgument(studyArgument())
    .option("--size <n>", "how many turns: a percentage of the codeable turns (20%) or a count (50)")
    .option("--n <count>", "how many turns (the same as --size <count>)")
    .option("--stratify <list>", "proportional strata, comma-separated: condition, run, session, speaker-kind, role")
    .option("--seed <n>", "seed of the draw: the same seed and study give the same sample", "1")
    .requiredOption("--out <file>", "the sample CSV (session,turn,fingerprint,stratum); <file>.provenance.json is written next to it; - prints it")
    .option(
      "--strategy <name>",
      "random (stratified, default) or uncertain: the turns no person has coded that --coder is least sure about (active learning)",
      "random",
    )
    .option("--coder <id>", "--strategy uncertain: the machine coder whose confidence decides (default learned)")
    .option(
      "--codebook <id>",
      "--strategy uncertain: the codebook of those codes (default: the first colloquy.json lists that --coder coded, else the only one it coded)",
    )
    .option("--json", "print the summary as JSON")
    .addHelpText(
      "after",
      `
Examples:
  colloquy sample my-study --size 20% --stratify condition,speaker-kind --seed 1 --out sample.csv
  colloquy sample my-study --size 50 --condition control --out pilot-sample.csv
  colloquy sample my-study --strategy uncertain --coder learned --n 20 --out next-batch.csv
    (the turns the learned coder is least sure of, spread across sessions; code them with
     colloquy annotate my-study --coder alice --sample next-batch.csv, then run code again)`,
    )
    .action(async (study: string, flags: SampleFlags) => {
      const { openStudy } = await import("../stages/context.js");
      const { parseSampleSize, parseStrata, runSample } = await import("../stages/sample.js");
      const strategy = oneOf("--strategy", flags.strategy, ["random", "uncertain"] as const);
      if (flags.size !== undefined && flags.n !== undefined) throw new CliError("give --size or --n, not both");
      const size = flags.size ?? flags.n;
      if (size === undefined) throw new CliError("say how many turns: --n 20 (or --size 20%)");
      const seed = Number(flags.seed);
      if (!Number.isInteger(seed) || seed < 0) throw new CliError(`--seed must be a whole number >= 0 (got "${flags.seed}")`);
      const context = await openStudy(study);
      const {
        result: summary,
        streamed,
        say,
      } = await writeOutput(flags.out, async (out) =>
        runSample(
          context,
          {
            size: parseSampleSize(size),
            stratify: flags.stratify ? parseStrata(flags.stratify) : [],
            seed,
            selection: selectionFrom(flags),
            out,
            strategy,
            coder: flags.coder,
            codebook: flags.codebook,
          },
          io().reporter(),
        ),
      );
      if (streamed)
        return say(`Sampled ${summary.size} of ${summary.population} codeable turn(s) (seed ${summary.seed}) to ${flags.out}; no provenance file beside it`);
      if (flags.json) return printJson(summary);
      const lines = [`Sampled ${summary.size} of ${summary.population} codeable turn(s) (seed ${summary.seed}) into ${summary.file}`];
      if (summary.stratify.length > 0) {
        lines.push(`strata (${summary.stratify.join(", ")}), proportional allocation by largest remainder:`);
        for (const s of summary.strata) lines.push(`  ${s.key}  ${s.sample} of ${s.population}`);
      }
      const codebook = summary.codebook ?? "<id>";
      lines.push(
        `Next: code them in a page (colloquy annotate ${study} --codebook ${codebook} --sample ${summary.file} --coder <your name>) or a sheet (colloquy sheet ${study} --codebook ${codebook} --sample ${summary.file} --coders alice,bob --out sheet.csv)` +
          (strategy === "uncertain" ? `; then code with the learned coder again, so the next sample ranks the turns by a model that saw these codes` : ""),
      );
      io().out(lines.join("\n"));
    });
}

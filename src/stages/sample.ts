import { dirname } from "node:path";
import { uncertainSample, type Doubt } from "../coding/active-learning.js";
import { codeableTurns, drawSample, STRATA, type DrawnSample, type Stratum, type StratumDraw } from "../coding/sample.js";
import { chosenCodebook } from "./codebook-choice.js";
import { changedTraining, codeValuesDigest, summariseRecords, type CodeRecord } from "../coding/records.js";
import { CliError } from "../util/errors.js";
import { toCsv } from "../util/csv.js";
import { writeFileAtomic, writeJsonAtomic } from "../util/fs.js";
import { portableStudyPath, provenance } from "../util/provenance.js";
import type { StageEffects, StudyContext } from "./context.js";
import { selectedContext, selectionOf, type SessionSelection } from "./selection.js";

/**
 * The sample stage: a reproducible reliability sample of codeable turns for double coding,
 * written as `session,turn,fingerprint,stratum` rows that `colloquy sheet --sample` reads.
 */

/** How many turns: a count, or a percentage of the codeable turns (rounded half up). */
export type SampleSize = { count: number } | { percent: number };

/** "20%" or "50" (a count). */
export function parseSampleSize(text: string): SampleSize {
  const trimmed = text.trim();
  const percent = /^(\d+(?:\.\d+)?)\s*%$/.exec(trimmed);
  if (percent) {
    const p = Number(percent[1]);
    if (p > 0 && p <= 100) return { percent: p };
  } else if (/^\d+$/.test(trimmed) && Number(trimmed) > 0) {
    return { count: Number(trimmed) };
  }
  throw new CliError(`--size "${text}": give a percentage of the codeable turns (e.g. 20%) or a number of turns (e.g. 50)`);
}

/** "condition,speaker-kind" -> strata, checked. */
export function parseStrata(text: string): Stratum[] {
  const names = text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const out: Stratum[] = [];
  for (const name of names) {
    if (!(STRATA as readonly string[]).includes(name)) throw new CliError(`--stratify ${name}: expected one or more of ${STRATA.join(", ")}`);
    if (!out.includes(name as Stratum)) out.push(name as Stratum);
  }
  return out;
}

export interface SampleStageOptions {
  size: SampleSize;
  /** Stratify by these (proportional allocation, largest remainder). */
  stratify?: readonly Stratum[];
  /** PRNG seed (default 1): the same seed and study give the same sample. */
  seed?: number;
  /** Draw from these sessions only. */
  selection?: SessionSelection;
  /** The CSV to write; `<out>.provenance.json` is written next to it. */
  out: string;
  /**
   * "random" (default): a stratified random sample. "uncertain": the turns no person has coded
   * that `coder` (default "learned") is least sure about, under `codebook` (active learning).
   */
  strategy?: "random" | "uncertain";
  coder?: string;
  codebook?: string;
}

export interface SampleSummary {
  file: string;
  provenanceFile: string;
  /** Codeable turns drawn from, and how many turns were not codeable, per reason. */
  population: number;
  skipped: Record<string, number>;
  size: number;
  seed: number;
  stratify: Stratum[];
  strata: StratumDraw[];
  /** The codebook the sample is for, when known (an uncertain sample's, or --codebook). */
  codebook?: string;
}

export async function runSample(context: StudyContext, options: SampleStageOptions, effects: StageEffects): Promise<SampleSummary> {
  const sessions = await selectedContext(context, options.selection).sessions();
  const { turns, skipped } = codeableTurns(sessions);
  if (turns.length === 0)
    throw new CliError(`${context.dir}: no codeable turns to sample (import sessions first; system, reasoning and empty turns are never coded)`);
  const n = "count" in options.size ? options.size.count : Math.floor((turns.length * options.size.percent) / 100 + 0.5);
  if (n > turns.length)
    throw new CliError(
      `asked for ${n} turns, but the ${selectionOf(options.selection) ? "selected sessions have" : "study has"} only ${turns.length} codeable turn(s); ask for ${turns.length} or fewer`,
    );
  if (n === 0)
    throw new CliError(
      `--size: ${"percent" in options.size ? `${options.size.percent}%` : "0"} of ${turns.length} codeable turns is no turn at all; ask for more`,
    );
  const seed = options.seed ?? 1;
  const stratify = [...(options.stratify ?? [])];
  const drawn: DrawnSample & { codebook?: string } =
    options.strategy === "uncertain" ? await leastCertain(context, options, turns, n, seed, effects) : drawSample(turns, n, stratify, seed);
  const body = toCsv(
    ["session", "turn", "fingerprint", "stratum"],
    drawn.units.map((u) => [u.session.id, u.turn.id, u.fingerprint, u.stratum]),
  );
  await writeFileAtomic(options.out, body);
  const provenanceFile = `${options.out}.provenance.json`;
  await writeJsonAtomic(
    provenanceFile,
    provenance({
      command: "sample",
      study: portableStudyPath(context.paths.root, dirname(options.out)),
      size: options.size,
      drawn: n,
      population: turns.length,
      seed,
      stratify,
      ...(options.strategy === "uncertain"
        ? { strategy: "uncertain", coder: options.coder ?? "learned", codebook: drawn.codebook ?? options.codebook, spread: "at most a fair share per session" }
        : { allocation: "proportional, largest remainder" }),
      strata: drawn.strata,
      ...(selectionOf(options.selection) ? { selection: selectionOf(options.selection) } : {}),
    }),
  );
  effects.log(`sample: ${n} of ${turns.length} codeable turn(s)${stratify.length ? ` in ${drawn.strata.length} strata` : ""}, seed ${seed}`);
  const codebook = drawn.codebook ?? options.codebook;
  return {
    file: options.out,
    provenanceFile,
    population: turns.length,
    skipped,
    size: n,
    seed,
    stratify,
    strata: drawn.strata,
    ...(codebook ? { codebook } : {}),
  };
}

/** Active learning: the turns no person has coded that the machine coder is least sure about. */
async function leastCertain(
  context: StudyContext,
  options: SampleStageOptions,
  turns: Parameters<typeof uncertainSample>[0],
  n: number,
  seed: number,
  effects: StageEffects,
): Promise<DrawnSample & { codebook: string }> {
  const coder = options.coder ?? "learned";
  const codebook = (await chosenCodebook(context, options.codebook, { command: "sample --strategy uncertain", coded: [coder] })).id;
  if ((options.stratify ?? []).length > 0)
    throw new CliError("--strategy uncertain picks the least certain turns across the study; it does not stratify (leave out --stratify)");
  const coders = (await context.coders())[codebook] ?? [];
  if (!coders.includes(coder))
    throw new CliError(
      `--strategy uncertain: no codes of ${codebook} by ${coder} yet; code first: colloquy code ${context.dir} --codebook ${codebook} --coder learned --train human:<name> (with --allow-below-floor while it has too few human codes to code on its own; its codes then record that status)`,
    );
  // How sure the coder is: the margin between its two likeliest codes where it stored one, else its confidence.
  const doubt = new Map<string, Doubt>();
  const machine = await context.codes(codebook, coder);
  for (const r of machine) {
    const sure = typeof r.provenance.margin === "number" ? r.provenance.margin : r.provenance.confidence;
    if (typeof sure === "number") doubt.set(`${r.session}\u0000${r.turn}`, { sure, code: r.codes?.[0] });
  }
  if (doubt.size === 0)
    throw new CliError(
      `--strategy uncertain: the codes of ${codebook} by ${coder} carry no confidence (the learned coder stores one; rules and LLM codes do not)`,
    );
  const handCoded = new Set<string>();
  const humans = new Map<string, readonly CodeRecord[]>();
  for (const human of coders.filter((c) => c.startsWith("human:"))) {
    humans.set(human, await context.codes(codebook, human));
    for (const r of humans.get(human)!) handCoded.add(`${r.session}\u0000${r.turn}`);
  }
  const summary = summariseRecords(machine);
  const changed = changedTraining(summary, (human) => (humans.has(human) ? codeValuesDigest(humans.get(human)!) : undefined));
  if (changed.length > 0) {
    const trainedOn = [...new Set([...summary.trainings].flatMap(Object.keys))];
    effects.warn(
      `the codes of ${changed.join(", ")} in ${codebook} changed since ${coder}'s codes were made: the doubts below are those of a model trained on other codes. Run \`colloquy code ${context.dir} --codebook ${codebook} --coder ${coder} --train ${trainedOn.join(",")}\` first to rank the turns with everything coded so far`,
    );
  }
  const drawn = uncertainSample(turns, n, doubt, handCoded, seed);
  // None left: "ask for 0 or fewer" would read as a typo to fix; the sample is done, not too big.
  if (drawn.units.length === 0)
    throw new CliError(
      `--strategy uncertain: every turn of ${codebook} that ${coder} coded has a person's code already, so none is left to sample; code more sessions with ${coder} to sample from them, or check the coder with \`colloquy agree ${context.dir} --codebook ${codebook}\``,
    );
  if (drawn.units.length < n)
    throw new CliError(
      `asked for ${n} turns, but only ${drawn.units.length} turn(s) coded by ${coder} and by no person are left to sample; ask for ${drawn.units.length} or fewer`,
    );
  return { ...drawn, codebook };
}

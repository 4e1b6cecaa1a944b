import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import Papa from "papaparse";
import { expect } from "vitest";
import { mulberry32 } from "../../src/util/random.js";
import { runCli } from "./cli.js";

/**
 * A small study for the learned coder's stage tests: turns made from a few sentence templates per
 * Bales code (so a model can learn them), imported from a CSV, with an empty coding sheet for alice.
 */

const TEMPLATES: Record<string, string[]> = {
  "asks-orientation": ["where is the {n}?", "which {n} do we use?", "what time is the {n}?"],
  "gives-suggestion": ["let's {v} the {n} first", "we should {v} the {n}", "maybe {v} the {n} before lunch"],
  agrees: ["yes, sounds good", "agreed, the {n} works", "ok, makes sense"],
  "gives-orientation": ["the {n} is in the shared folder", "the {n} starts at noon", "I uploaded the {n} to the drive"],
};
const NOUNS = ["report", "budget", "demo", "plan"];
const VERBS = ["review", "finish", "check"];

export interface TemplatedStudy {
  study: string;
  /** The coding sheet (column code_alice), one row per turn in the order of `codes`. */
  sheet: string;
  /** Each turn's code: its template's, or with probability `noise` another at random. */
  codes: string[];
}

export async function templatedStudy(dir: string, options: { seed: number; sessions: number; turns?: number; noise?: number }): Promise<TemplatedStudy> {
  const study = join(dir, "study");
  const random = mulberry32(options.seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)];
  const rows: { conversation: string; speaker: string; text: string }[] = [];
  const codes: string[] = [];
  for (let s = 0; s < options.sessions; s++)
    for (let t = 0; t < (options.turns ?? 12); t++) {
      const code = pick(Object.keys(TEMPLATES));
      rows.push({ conversation: `s${s}`, speaker: t % 2 ? "ana" : "ben", text: pick(TEMPLATES[code]).replace("{n}", pick(NOUNS)).replace("{v}", pick(VERBS)) });
      codes.push(random() < (options.noise ?? 0) ? pick(Object.keys(TEMPLATES)) : code);
    }
  await mkdir(join(dir, "source"));
  const csv = join(dir, "source", "turns.csv");
  await writeFile(csv, Papa.unparse(rows));
  expect((await runCli(["import", csv, "--study", study, "--columns", "session=conversation,speaker=speaker,text=text"])).code).toBe(0);
  const sheet = join(dir, "sheet.csv");
  expect((await runCli(["sheet", study, "--codebook", "bales-ipa", "--coders", "alice", "--context", "0", "--out", sheet])).code).toBe(0);
  return { study, sheet, codes };
}

/** Fill the sheet's code_alice with `labels` (row order) and import them as human:alice. */
export async function importAliceCodes({ study, sheet }: TemplatedStudy, labels: readonly string[]): Promise<void> {
  const filled = Papa.parse<Record<string, string>>(await readFile(sheet, "utf8"), { header: true, skipEmptyLines: true }).data;
  filled.forEach((row, i) => (row.code_alice = labels[i]));
  const out = `${sheet}.filled.csv`;
  await writeFile(out, Papa.unparse(filled));
  expect((await runCli(["codes", "import", out, "--study", study, "--codebook", "bales-ipa", "--coder", "human:alice"])).code).toBe(0);
}

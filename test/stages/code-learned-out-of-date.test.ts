import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Papa from "papaparse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readCodes } from "../../src/coding/store.js";
import { mulberry32, shuffleInPlace } from "../../src/util/random.js";
import { runCli } from "../support/cli.js";

/**
 * When the human codes change so that the learned coder falls under the floor, `code` refuses and
 * stores nothing new; the codes of the earlier training stay, still saying "validated". The refusal
 * says they are out of date, so a researcher does not go on reading them as checked.
 */

const TEMPLATES: Record<string, string[]> = {
  "asks-orientation": ["where is the {n}?", "which {n} do we use?", "what time is the {n}?"],
  "gives-suggestion": ["let's {v} the {n} first", "we should {v} the {n}", "maybe {v} the {n} before lunch"],
  agrees: ["yes, sounds good", "agreed, the {n} works", "ok, makes sense"],
  "gives-orientation": ["the {n} is in the shared folder", "the {n} starts at noon", "I uploaded the {n} to the drive"],
};
const NOUNS = ["report", "budget", "demo", "plan"];
const VERBS = ["review", "finish", "check"];

let dir: string;
let study: string;
let sheet: string;
let codes: string[];

async function codeSheet(labels: readonly string[]) {
  const filled = Papa.parse<Record<string, string>>(await readFile(sheet, "utf8"), { header: true, skipEmptyLines: true }).data;
  filled.forEach((row, i) => (row.code_alice = labels[i]));
  const out = join(dir, "filled.csv");
  await writeFile(out, Papa.unparse(filled));
  expect((await runCli(["codes", "import", out, "--study", study, "--codebook", "bales-ipa", "--coder", "human:alice"])).code).toBe(0);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "colloquy-learned-out-of-date-"));
  study = join(dir, "study");
  const random = mulberry32(5);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)];
  const rows: { conversation: string; speaker: string; text: string }[] = [];
  codes = [];
  for (let s = 0; s < 10; s++)
    for (let t = 0; t < 12; t++) {
      const code = pick(Object.keys(TEMPLATES));
      rows.push({ conversation: `s${s}`, speaker: t % 2 ? "ana" : "ben", text: pick(TEMPLATES[code]).replace("{n}", pick(NOUNS)).replace("{v}", pick(VERBS)) });
      codes.push(code);
    }
  await mkdir(join(dir, "source"));
  const csv = join(dir, "source", "turns.csv");
  await writeFile(csv, Papa.unparse(rows));
  expect((await runCli(["import", csv, "--study", study, "--columns", "session=conversation,speaker=speaker,text=text"])).code).toBe(0);
  sheet = join(dir, "sheet.csv");
  expect((await runCli(["sheet", study, "--codebook", "bales-ipa", "--coders", "alice", "--context", "0", "--out", sheet])).code).toBe(0);
}, 300_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("learned coder under the floor after the human codes changed", { timeout: 300_000 }, () => {
  it("says the codes of the earlier training are out of date", async () => {
    await codeSheet(codes);
    expect((await runCli(["code", study, "--codebook", "bales-ipa", "--coder", "learned", "--train", "human:alice"])).code).toBe(0);
    const before = await readCodes(study, "bales-ipa", "learned");
    expect(before[0].provenance.validation).toMatchObject({ status: "validated" });
    // The same turns recoded at random: nothing left to learn.
    await codeSheet(shuffleInPlace([...codes], mulberry32(9)));
    const stop = await runCli(["code", study, "--codebook", "bales-ipa", "--coder", "learned", "--train", "human:alice"]);
    expect(stop.code).not.toBe(0);
    expect(stop.stderr).toMatch(/under 0\.4/);
    expect(stop.stderr).toContain(`The ${before.length} learned code(s) of bales-ipa already stored were learned from other human codes`);
    expect(stop.stderr).toContain('they still say "validated"');
    expect(await readCodes(study, "bales-ipa", "learned")).toEqual(before);
  });
});

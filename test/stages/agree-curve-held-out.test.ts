import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Papa from "papaparse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCodebook } from "../../src/coding/codebook/load.js";
import { trainingExamples } from "../../src/coding/learned/coder.js";
import { crossValidate } from "../../src/coding/learned/validate.js";
import { readCodes } from "../../src/coding/store.js";
import { loadSessions } from "../../src/study/study.js";
import { mulberry32 } from "../../src/util/random.js";
import { runCli } from "../support/cli.js";

/**
 * `agree --learning-curve --sessions ...` is a held-out curve: nothing about the selected sessions'
 * codes may choose its settings. A learned coder trained on every session chose its C with the
 * selection's codes in its folds, so the curve chooses again on the codes outside the selection.
 */

const TEMPLATES: Record<string, string[]> = {
  "asks-orientation": ["where is the {n}?", "which {n} do we use?"],
  "gives-suggestion": ["let's {v} the {n} first", "we should {v} the {n}"],
  agrees: ["yes, sounds good", "agreed, the {n} works"],
  "gives-orientation": ["the {n} is in the shared folder", "the {n} starts at noon"],
};
const NOUNS = ["report", "budget", "demo", "plan"];
const VERBS = ["review", "finish", "check"];

let dir: string;
let study: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "colloquy-curve-held-out-"));
  study = join(dir, "study");
  const random = mulberry32(3);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)];
  const rows: { conversation: string; speaker: string; text: string; code: string }[] = [];
  for (let s = 0; s < 8; s++)
    for (let t = 0; t < 12; t++) {
      const code = pick(Object.keys(TEMPLATES));
      const text = pick(TEMPLATES[code]).replace("{n}", pick(NOUNS)).replace("{v}", pick(VERBS));
      rows.push({ conversation: `s${s}`, speaker: t % 2 ? "ana" : "ben", text, code: random() < 0.2 ? pick(Object.keys(TEMPLATES)) : code });
    }
  await mkdir(join(dir, "source"));
  const csv = join(dir, "source", "turns.csv");
  await writeFile(csv, Papa.unparse(rows.map(({ conversation, speaker, text }) => ({ conversation, speaker, text }))));
  expect((await runCli(["import", csv, "--study", study, "--columns", "session=conversation,speaker=speaker,text=text"])).code).toBe(0);
  const sheet = join(dir, "sheet.csv");
  expect((await runCli(["sheet", study, "--codebook", "bales-ipa", "--coders", "alice", "--context", "0", "--out", sheet])).code).toBe(0);
  const filled = Papa.parse<Record<string, string>>(await readFile(sheet, "utf8"), { header: true, skipEmptyLines: true }).data;
  filled.forEach((row, i) => (row.code_alice = rows[i].code));
  await writeFile(sheet, Papa.unparse(filled));
  expect((await runCli(["codes", "import", sheet, "--study", study, "--codebook", "bales-ipa", "--coder", "human:alice"])).code).toBe(0);
  expect((await runCli(["code", study, "--codebook", "bales-ipa", "--coder", "learned", "--train", "human:alice"])).code).toBe(0);
}, 300_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("agree --learning-curve on a selection", { timeout: 300_000 }, () => {
  it("chooses its settings on the codes outside the selection when the coder learned from the selection too", async () => {
    // Say the coder chose C = 10 on every session: as it might have, with the selection's codes in its folds.
    const file = join(study, "codes", "bales-ipa", "learned.jsonl");
    await writeFile(file, (await readFile(file, "utf8")).replace(/"modelSettings":\{"c":\d+/g, '"modelSettings":{"c":10'));
    const sessions = await loadSessions(study);
    const selected = sessions.slice(-2).map((s) => s.id);
    const run = await runCli([
      "agree",
      study,
      "--codebook",
      "bales-ipa",
      "--coders",
      "learned,human:alice",
      "--learning-curve",
      "--sessions",
      selected.join(","),
      "--bootstrap",
      "0",
      "--json",
    ]);
    expect(run.code).toBe(0);
    const curve = JSON.parse(run.stdout).learningCurve;
    expect(curve.method).toBe("held-out");
    const pool = trainingExamples(
      sessions,
      (await readCodes(study, "bales-ipa", "human:alice")).filter((r) => !selected.includes(r.session)),
    );
    const onPool = crossValidate(await loadCodebook("bales-ipa"), pool).settings;
    expect(onPool.c).not.toBe(10);
    expect(curve.settings).toEqual(onPool);
  });
});

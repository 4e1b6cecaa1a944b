import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCodebook } from "../../src/coding/codebook/load.js";
import { trainingExamples } from "../../src/coding/learned/coder.js";
import { crossValidate } from "../../src/coding/learned/validate.js";
import { readCodes } from "../../src/coding/store.js";
import { loadSessions } from "../../src/study/study.js";
import { runCli } from "../support/cli.js";
import { importAliceCodes, templatedStudy } from "../support/templated-study.js";

/**
 * `agree --learning-curve --sessions ...` is a held-out curve: nothing about the selected sessions'
 * codes may choose its settings. A learned coder trained on every session chose its C with the
 * selection's codes in its folds, so the curve chooses again on the codes outside the selection.
 */

let dir: string;
let study: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "colloquy-curve-held-out-"));
  const made = await templatedStudy(dir, { seed: 3, sessions: 8, noise: 0.2 });
  study = made.study;
  await importAliceCodes(made, made.codes);
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

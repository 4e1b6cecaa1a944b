import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { goldExamples } from "./gold-examples.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeSession, writePipelineStudy } from "../../bench/support/pipeline-study.js";
import { loadCodebook } from "../../src/coding/codebook/load.js";
import type { Codebook } from "../../src/coding/codebook/schema.js";
import { turnTerms } from "../../src/coding/learned/features.js";
import { trainLearnedModel, type Prediction } from "../../src/coding/learned/model.js";
import { chooseView, crossValidate, MAX_UNDEFINED_SHARE, MIN_VIEW_SESSIONS, sessionBootstrap, type GroupedExample } from "../../src/coding/learned/validate.js";
import { readCodes, replaceCodes } from "../../src/coding/store.js";
import { runCli } from "../support/cli.js";

/**
 * Which model codes (validate.ts, ViewComparison): the text model averaged with the
 * text-and-context model, unless the folds show one of them alone measurably better than the
 * average; then only that one is fitted, and the records say so.
 */

/**
 * The first `turns` turns of the benchmark's generated sessions (their texts' pools differ by
 * speaker kind, so the context tells a lot).
 */
function generated(sessions: number, turns = 100): GroupedExample[] {
  return Array.from({ length: sessions }, (_, s) => makeSession(s, 7)).flatMap(({ session, truth }) =>
    session.turns.slice(0, turns).map((_, i) => ({ group: session.id, terms: turnTerms(session, i), codes: [truth[i]] })),
  );
}

describe("learned coder: which model codes", () => {
  it("one model alone codes, and is the only one fitted, where the folds show it measurably better than the average on enough sessions", async () => {
    const bales = await loadCodebook("bales-ipa");
    const examples = generated(12, 40);
    const cv = crossValidate(bales, examples, { folds: 4 });
    expect(cv.views!.sessions).toBe(12);
    expect(12).toBeGreaterThanOrEqual(MIN_VIEW_SESSIONS);
    expect(cv.views!.chosen).toBe("context");
    expect(cv.views!.overAverage.context!.lower).toBeGreaterThan(0);
    expect(cv.views!.kappa.context).toBeGreaterThan(cv.views!.kappa.average);
    // The estimate and the out-of-fold codes are that model's, at the C the average chose.
    expect(cv.settings).toEqual({ ...cv.tried.reduce((b, t) => (t.kappa > b.kappa ? t : b)).settings, text: false, context: true });
    expect(cv.kappa).toBe(cv.views!.kappa.context);
    const model = trainLearnedModel(bales, examples, cv.settings);
    expect(model.heads[0].models).toHaveLength(1);
    // The same model as the text-and-context half of the pair, bit for bit.
    const pair = trainLearnedModel(bales, examples, { ...cv.settings, text: true });
    expect(pair.heads[0].models).toHaveLength(2);
    expect(model.heads[0].models[0].weights).toEqual(pair.heads[0].models[1].weights);
  }, 120_000);

  it("on fewer sessions than MIN_VIEW_SESSIONS the average codes, even where the interval lies above 0", async () => {
    const bales = await loadCodebook("bales-ipa");
    // 4 sessions x 100 turns: the context model's interval clears 0, but over 4 sessions the
    // percentile bootstrap is no 95% interval.
    const cv = crossValidate(bales, generated(4), { folds: 4 });
    expect(cv.views!.sessions).toBe(4);
    expect(cv.views!.overAverage.context!.lower).toBeGreaterThan(0);
    expect(cv.views!.chosen).toBe("average");
    expect(cv.settings).toMatchObject({ text: true, context: true });
    expect(cv.kappa).toBe(cv.views!.kappa.average);
  }, 120_000);

  it("chooseView: the gain must be above 0, on at least MIN_VIEW_SESSIONS sessions, with few undefined replicates", () => {
    const kappa = { text: 0.8, context: 0.95, average: 0.9 };
    const gain = (lower: number, undefinedShare = 0) => ({ lower, upper: lower + 0.05, undefinedShare });
    const comparison = { kappa, overAverage: { text: gain(-0.1), context: gain(0.01) }, sessions: MIN_VIEW_SESSIONS };
    expect(chooseView(comparison)).toBe("context");
    expect(chooseView({ ...comparison, sessions: MIN_VIEW_SESSIONS - 1 })).toBe("average");
    expect(chooseView({ ...comparison, overAverage: { ...comparison.overAverage, context: gain(-0.001) } })).toBe("average");
    expect(chooseView({ ...comparison, overAverage: { ...comparison.overAverage, context: gain(0.01, MAX_UNDEFINED_SHARE) } })).toBe("context");
    expect(chooseView({ ...comparison, overAverage: { ...comparison.overAverage, context: gain(0.01, MAX_UNDEFINED_SHARE + 0.01) } })).toBe("average");
    // Both above 0: the better one.
    expect(chooseView({ ...comparison, kappa: { ...kappa, text: 0.97 }, overAverage: { text: gain(0.02), context: gain(0.01) } })).toBe("text");
  });

  it("a scales codebook: the average always codes and no model comparison is made (its ratings depend on the calibration)", async () => {
    const ttct = (await loadCodebook("ttct-creativity")) as Extract<Codebook, { kind: "scales" }>;
    // Ratings that follow the generated codes, so the context tells as much as for the codes.
    const codes = [...new Set(generated(12, 40).map((e) => e.codes![0]))].sort();
    const rated = generated(12, 40).map(({ codes: c, ...e }) => ({
      ...e,
      scores: Object.fromEntries(ttct.scales.map((sc, k) => [sc.id, 1 + ((codes.indexOf(c![0]) + k) % sc.points)])),
    }));
    const cv = crossValidate(ttct, rated, { folds: 4 });
    expect(cv.views).toBeUndefined();
    expect(cv.settings).toMatchObject({ text: true, context: true });
    expect(Number.isFinite(cv.kappa)).toBe(true);
  }, 120_000);

  it("where the folds cannot tell the models apart, the average codes", async () => {
    const bales = await loadCodebook("bales-ipa");
    const cv = crossValidate(bales, await goldExamples("tune"), { folds: 4 });
    expect(cv.views!.chosen).toBe("average");
    expect(cv.views!.overAverage.context!.lower).toBeLessThanOrEqual(0);
    expect(cv.views!.overAverage.text!.lower).toBeLessThanOrEqual(0);
    expect(cv.settings).toMatchObject({ text: true, context: true });
    expect(cv.kappa).toBe(cv.views!.kappa.average);
  }, 120_000);
});

describe("colloquy code --coder learned: the records say which model coded", { timeout: 600_000 }, () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "colloquy-learned-views-"));
    // 12 sessions (at least MIN_VIEW_SESSIONS), every one coded by human:alice: 1,200 codes.
    await writePipelineStudy(dir, 1_200, 7, 1);
  }, 600_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("says which model coded in its summary, and stores it in every record", async () => {
    const run = await runCli(["code", dir, "--codebook", "bales-ipa", "--coder", "learned", "--train", "human:alice"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/learned from 1,200 code\(s\) by human:alice \(the text-and-context model alone\): kappa /);
    const records = await readCodes(dir, "bales-ipa", "learned");
    expect(records).toHaveLength(1_200);
    for (const r of records) {
      expect(r.provenance.modelSettings).toMatchObject({ text: false, context: true });
      expect(r.provenance.model).toMatch(/the text-and-context model alone$/);
    }
  });

  it("agree --learning-curve trains the model the records say coded, as code --learning-curve does", async () => {
    const code = JSON.parse(
      (await runCli(["code", dir, "--codebook", "bales-ipa", "--coder", "learned", "--train", "human:alice", "--learning-curve", "--json"])).stdout,
    ).jobs[0];
    expect(code.learned.validation.settings).toMatchObject({ text: false, context: true });
    const agree = JSON.parse(
      (await runCli(["agree", dir, "--codebook", "bales-ipa", "--coders", "learned,human:alice", "--learning-curve", "--bootstrap", "0", "--json"])).stdout,
    ).learningCurve;
    expect(agree.points).toEqual(code.learned.curve);
  });

  it("agree --learning-curve: records of learned coder versions before 5 (no `text` in modelSettings) had both models, so the curve trains both", async () => {
    const records = await readCodes(dir, "bales-ipa", "learned");
    const old = records.map((r) => {
      const { text: _text, ...settings } = r.provenance.modelSettings as Record<string, unknown>;
      return { ...r, provenance: { ...r.provenance, learnedVersion: "4", modelSettings: { ...settings, context: true } } };
    });
    await replaceCodes(dir, "bales-ipa", "learned", old);
    const agree = JSON.parse(
      (await runCli(["agree", dir, "--codebook", "bales-ipa", "--coders", "learned,human:alice", "--learning-curve", "--bootstrap", "0", "--json"])).stdout,
    ).learningCurve;
    // The settings every point was trained with: the records' C, and both models.
    const { c, balanced } = records[0].provenance.modelSettings as { c: number; balanced: boolean };
    expect(agree.settings).toEqual({ c, text: true, context: true, balanced });
  });
});

describe("the paired bootstrap of two sets of predictions", () => {
  it("gives a difference of exactly 0 on resamples where the two sets code alike, whatever order each first used the codes in", async () => {
    const bales = await loadCodebook("bales-ipa");
    if (bales.kind !== "nominal") throw new Error("bales-ipa is nominal");
    const ids = bales.categories.map((c) => c.id);
    const examples: GroupedExample[] = [];
    const first: Prediction[] = [];
    const second: Prediction[] = [];
    const predicted = (code: string): Prediction => ({ codes: [code], probabilities: {}, confidence: 1, margin: 1 });
    for (let s = 0; s < 12; s++) {
      for (let t = 0; t < 10; t++) {
        const human = ids[(s + t) % 5];
        const machine = t % 3 === 0 ? ids[(s + t + 1) % 5] : human;
        examples.push({ group: `s${String(s).padStart(2, "0")}`, terms: undefined as never, codes: [human] });
        // Session s00 alone differs: its first turn is right in the first set and wrong in the second,
        // which so uses ids[4] before ids[1] where the first set uses ids[1] first.
        first.push(predicted(s === 0 && t === 0 ? human : machine));
        second.push(predicted(s === 0 && t === 0 ? ids[4] : machine));
      }
    }
    const interval = sessionBootstrap(bales, examples, [first, second], ([a, b]) => a - b, 1)!;
    // About (11/12)^12 = 35% of resamples leave out s00: there the two kappas are the same number.
    expect(interval.lower).toBe(0);
    expect(interval.upper).toBeGreaterThan(0);
  });
});

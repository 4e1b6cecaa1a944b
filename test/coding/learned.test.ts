import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Papa from "papaparse";
import { gold, goldExamples, type GoldRow } from "./gold-examples.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCodebook } from "../../src/coding/codebook/load.js";
import type { Codebook } from "../../src/coding/codebook/schema.js";
import { FEATURE_BITS, turnTerms, turnVector, fitIdf, vectorise, withoutContext } from "../../src/coding/learned/features.js";
import { fnv1a, FNV_PRIME } from "../../src/util/hash.js";
import { logisticScores, predictLogistic, trainLogistic } from "../../src/coding/learned/logistic.js";
import { mulberry32 } from "../../src/util/random.js";
import {
  averageScores,
  modelScores,
  predictLearned,
  predictTurn,
  trainLearnedModel,
  vectorScores,
  type ModelSettings,
} from "../../src/coding/learned/model.js";
import { agreementOf, crossValidate, LARGE_STUDY_FOLDS, shuffledSessions, type GroupedExample, type Validation } from "../../src/coding/learned/validate.js";
import { bootstrapCI } from "../../src/analysis/reliability/bootstrap.js";
import { appendCodes, readCodes } from "../../src/coding/store.js";
import { turnFingerprint } from "../../src/transcript/fingerprint.js";
import type { Session } from "../../src/transcript/schema.js";
import { runCli } from "../support/cli.js";

/** One-turn-per-line sessions from [speaker, text] pairs. */
function session(id: string, lines: readonly (readonly [string, string])[]): Session {
  return {
    schemaVersion: 1,
    id,
    metadata: {},
    participants: [...new Set(lines.map(([p]) => p))].map((p) => ({ id: p, name: p, kind: p === "bot" ? ("ai" as const) : ("human" as const) })),
    turns: lines.map(([speaker, text], index) => ({ id: `t${index}`, index, speaker, text, type: "message" as const })),
  };
}

/** scikit-learn's default C, without the context features, balanced class weights. */
const SETTINGS: ModelSettings = { c: 1, text: true, context: false, balanced: true };

describe("learned coder: parts", () => {
  it("features are deterministic, block-normalised, and drop terms never seen in training", () => {
    const s = session("a", [
      ["ana", "Could you send the plan?"],
      ["bot", "Sure, here it is."],
    ]);
    const [a, b] = [turnTerms(s, 0), turnTerms(s, 0)];
    expect(a).toEqual(b);
    const idf = fitIdf([turnTerms(s, 0)]);
    const x = vectorise(turnTerms(s, 0), idf);
    // Three blocks (words, characters, context), each of unit length.
    const squares = x.value.reduce((sum, v) => sum + v * v, 0);
    expect(squares).toBeCloseTo(3, 10);
    // The vocabulary numbers exactly the features seen in training, densely and in order (the
    // context block's last), so the idf and the models' columns are arrays of its size.
    const seen = turnTerms(s, 0).blocks.reduce((n, bl) => n + bl.bucket.length, 0);
    expect(idf.weight.length).toBe(seen);
    expect(x.index).toEqual(Array.from({ length: seen }, (_, i) => i));
    expect(idf.contextStart).toBe(seen - turnTerms(s, 0).blocks[2].bucket.length);
    // The second turn shares no word with the first: only shared character n-grams and context remain.
    const unseen = vectorise(turnTerms(s, 1), idf);
    expect(unseen.index.length).toBeLessThan(turnTerms(s, 1).blocks.reduce((n, bl) => n + bl.bucket.length, 0));
    // The text model's view, cut from the vector with the context block, is what vectorise gives without it.
    expect(withoutContext(x, idf)).toEqual(vectorise(turnTerms(s, 0), idf, false));
    expect(withoutContext(x, idf).index.length).toBeLessThan(x.index.length);
  });

  it("coding a turn in reused buffers gives vectorise's vector and predictLearned's prediction, bit for bit", async () => {
    const bales = await loadCodebook("bales-ipa");
    const s = session("a", [
      ["ana", "Could you send the plan? The plan, the plan: we’re planning it all over again."],
      ["bot", "Sure, here it is: Überprüfung 2026 — a long word, antidisestablishmentarianism!"],
      ["ana", "ok"],
      ["bot", `${"a long turn that grows the buffers ".repeat(60)}antidisestablishmentarianism`],
    ]);
    // Trained on the first two turns: the others have terms never seen (no id) and repeated ones (counts above 1).
    const idf = fitIdf([turnTerms(s, 0), turnTerms(s, 1)]);
    for (const i of [0, 1, 2, 3])
      for (const context of [true, false]) {
        const x = vectorise(turnTerms(s, i), idf, context);
        const buffered = turnVector(s, i, idf, context);
        expect(Array.from(buffered.index.subarray(0, buffered.length))).toEqual(x.index);
        expect(Array.from(buffered.value.subarray(0, buffered.length))).toEqual(x.value);
      }
    const examples = [0, 1].map((i) => ({ terms: turnTerms(s, i), codes: [i === 0 ? "asks-orientation" : "gives-orientation"] }));
    for (const settings of [SETTINGS, { ...SETTINGS, context: true }, { ...SETTINGS, text: false, context: true }]) {
      const model = trainLearnedModel(bales, examples, settings);
      for (const i of [0, 1, 2, 3]) {
        expect(predictTurn(model, s, i, 0.7)).toEqual(predictLearned(model, turnTerms(s, i), 0.7));
        // Coding and predictLearned share meanScores: both must give the scores the
        // cross-validation decides and calibrates on (each model's, then their mean).
        const x = vectorise(turnTerms(s, i), model.idf, model.settings.context);
        expect(vectorScores(model, x)).toEqual(modelScores(model, x).map(averageScores));
      }
    }
  });

  it("a turn's hashed terms are those of the coder's version (the training hash and the models are made of them)", () => {
    // Repeated words and n-grams (counts above 1), a curly apostrophe, non-ASCII letters, a word
    // longer than the n-grams. Pinned (since version 8's char_wb n-grams): a change here changes
    // every model, so it needs a new version.
    const s = session("a", [
      ["ana", "Could you send the plan? The plan, the plan: we’re planning it all over again."],
      ["bot", "Sure, here it is: Überprüfung 2026 — a long word, antidisestablishmentarianism!"],
    ]);
    const hash = createHash("sha256");
    for (const i of [0, 1]) hash.update(JSON.stringify(turnTerms(s, i).blocks));
    expect(hash.digest("hex").slice(0, 16)).toBe("50b57d3caa2f239f");
    expect(turnTerms(s, 0).blocks[1].count.filter((c) => c > 1)).toHaveLength(24);
  });

  it("the character block is scikit-learn's char_wb 2-5-grams of the whitespace-separated tokens, punctuation included", () => {
    // Expected: TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5)).build_analyzer()(text), scikit-learn 1.2.1,
    // sorted. Runs of spaces and tabs, punctuation inside tokens, an astral character (one
    // character in Python, two UTF-16 units here), upper-case and accented letters.
    const cases: [string, string[]][] = [
      [
        "Why?  Now!",
        [
          " n",
          " no",
          " now",
          " now!",
          " w",
          " wh",
          " why",
          " why?",
          "! ",
          "? ",
          "hy",
          "hy?",
          "hy? ",
          "no",
          "now",
          "now!",
          "now! ",
          "ow",
          "ow!",
          "ow! ",
          "w!",
          "w! ",
          "wh",
          "why",
          "why?",
          "why? ",
          "y?",
          "y? ",
        ],
      ],
      ["a b", [" a", " a ", " b", " b ", "a ", "b "]],
      [
        "I'm  OK 😀x\tdone.",
        [
          " d",
          " do",
          " don",
          " done",
          " i",
          " i'",
          " i'm",
          " i'm ",
          " o",
          " ok",
          " ok ",
          " 😀",
          " 😀x",
          " 😀x ",
          "'m",
          "'m ",
          ". ",
          "do",
          "don",
          "done",
          "done.",
          "e.",
          "e. ",
          "i'",
          "i'm",
          "i'm ",
          "k ",
          "m ",
          "ne",
          "ne.",
          "ne. ",
          "ok",
          "ok ",
          "on",
          "one",
          "one.",
          "one. ",
          "x ",
          "😀x",
          "😀x ",
        ],
      ],
      ["ÉTÉ à", [" à", " à ", " é", " ét", " été", " été ", "té", "té ", "à ", "é ", "ét", "été", "été "]],
      // Python's whitespace, not JavaScript's: NEL and U+001F separate tokens, a byte-order mark does not.
      [
        "Ok\u0085no\ufeffway\u001fend",
        [
          " e",
          " en",
          " end",
          " end ",
          " n",
          " no",
          " no\ufeff",
          " no\ufeffw",
          " o",
          " ok",
          " ok ",
          "ay",
          "ay ",
          "d ",
          "en",
          "end",
          "end ",
          "k ",
          "nd",
          "nd ",
          "no",
          "no\ufeff",
          "no\ufeffw",
          "no\ufeffwa",
          "ok",
          "ok ",
          "o\ufeff",
          "o\ufeffw",
          "o\ufeffwa",
          "o\ufeffway",
          "wa",
          "way",
          "way ",
          "y ",
          "\ufeffw",
          "\ufeffwa",
          "\ufeffway",
          "\ufeffway ",
        ],
      ],
    ];
    const hashOf = (gram: string) => ([...gram].reduce((h, ch) => Math.imul(h ^ ch.codePointAt(0)!, FNV_PRIME), fnv1a("c ")) >>> 0) & ((1 << FEATURE_BITS) - 1);
    for (const [text, grams] of cases) {
      const counts = new Map<number, number>();
      for (const gram of grams) counts.set(hashOf(gram), (counts.get(hashOf(gram)) ?? 0) + 1);
      const { bucket, count } = turnTerms(session("a", [["ana", text]]), 0).blocks[1];
      expect(new Map(bucket.map((b, i) => [b, count[i]])), text).toEqual(counts);
    }
  });

  it("logistic regression separates separable data, its probabilities sum to 1, and a seed fixes the model", () => {
    const xs = [0, 1, 2, 3, 4, 5].map((i) => ({ index: [i % 3], value: [1] }));
    const ys = [0, 1, 2, 0, 1, 2].map((k) => [k]);
    const model = trainLogistic("softmax", xs, ys, 3, { c: 1 });
    expect(model.fit.converged).toBe(true);
    xs.forEach((x, i) => {
      const p = predictLogistic(model, x);
      expect(p.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
      expect(p.indexOf(Math.max(...p))).toBe(ys[i][0]);
    });
    expect(trainLogistic("softmax", xs, ys, 3, { c: 1 }).weights).toEqual(model.weights);
    // One-vs-rest: an example can have two labels.
    const multi = trainLogistic("one-vs-rest", xs, [[0, 1], [1], [2], [0, 1], [1], [2]], 3, { c: 1 });
    const p = predictLogistic(multi, xs[0]);
    expect(p[0]).toBeGreaterThan(0.5);
    expect(p[1]).toBeGreaterThan(0.5);
    expect(p[2]).toBeLessThan(0.5);
  });

  it("logistic regression with classes beyond a block of four: scores are bias + weights · x, and the fit stops where the gradient is ~0", () => {
    // 6 classes: one block of four and two left over (the scoring and gradient loops go four classes at a time).
    const classes = 6;
    const random = mulberry32(7);
    const xs = Array.from({ length: 60 }, () => {
      const index = [...new Set(Array.from({ length: 5 }, () => Math.floor(random() * 40)))].sort((a, b) => a - b);
      return { index, value: index.map(() => random()) };
    });
    const ys = xs.map((x) => [x.index[0] % classes]);
    const c = 2;
    const model = trainLogistic("softmax", xs, ys, classes, { c });
    expect(model.fit.converged).toBe(true);
    const scores = (x: { index: number[]; value: number[] }) =>
      Array.from({ length: classes }, (_, k) => x.index.reduce((s, j, a) => s + model.weights[model.columns[j] * classes + k] * x.value[a], model.bias[k]));
    for (const x of xs) Array.from(logisticScores(model, x)).forEach((s, k) => expect(s).toBeCloseTo(scores(x)[k], 12));
    // A feature the model never saw adds nothing.
    expect(Array.from(logisticScores(model, { index: [xs[0].index[0], 100], value: [xs[0].value[0], 5] }))).toEqual(
      Array.from(logisticScores(model, { index: [xs[0].index[0]], value: [xs[0].value[0]] })),
    );
    // The objective's gradient, computed the plain way, is ~0 at the fit: (Σ x (p - y) + W / C) / n per weight.
    const gradient = new Float64Array(model.weights.length);
    xs.forEach((x, i) => {
      const p = predictLogistic(model, x);
      x.index.forEach((j, a) => {
        for (let k = 0; k < classes; k++) gradient[model.columns[j] * classes + k] += x.value[a] * (p[k] - (ys[i][0] === k ? 1 : 0));
      });
    });
    const largest = Math.max(...gradient.map((g, at) => Math.abs((g + model.weights[at] / c) / xs.length)));
    expect(largest).toBeLessThan(1e-3);
  });

  it("cross-validation keeps each session in one fold (a session-specific word cannot leak its label)", async () => {
    const codebook = await loadCodebook("bales-ipa");
    // Every turn of a session carries the session's own made-up word and the session's code; the
    // texts are otherwise identical. Only a turn-level split (leaking sessions) could score well.
    const examples: GroupedExample[] = [];
    for (let s = 0; s < 12; s++) {
      const words = `zq${s}x`;
      const code = s % 2 === 0 ? "agrees" : "disagrees";
      const sess = session(
        `s${s}`,
        Array.from({ length: 8 }, () => ["ana", `${words} we should look at this`] as const),
      );
      sess.turns.forEach((_, i) => examples.push({ group: sess.id, terms: turnTerms(sess, i), codes: [code] }));
    }
    const cv = crossValidate(codebook, examples, { folds: 4 });
    expect(cv.n).toBe(examples.length);
    expect(cv.agreement).toBeLessThan(0.75);
    // With the fold models trained on a draw of sessions (large studies), every session is still
    // predicted by a model that never saw it.
    const capped = crossValidate(codebook, examples, { folds: 4, maxExamples: 64 });
    expect(capped.predictions.every((p) => p !== undefined)).toBe(true);
    expect([cv.folds, capped.folds]).toEqual([4, LARGE_STUDY_FOLDS]);
    expect(capped.agreement).toBeLessThan(0.75);
  });

  it("in a large study the settings are compared on the drawn sessions' out-of-fold turns, and only the chosen one predicts the rest", async () => {
    const bales = await loadCodebook("bales-ipa");
    const tune = await goldExamples("tune");
    const maxExamples = 120;
    const grid: ModelSettings[] = [1, 10].map((c) => ({ ...SETTINGS, c }));
    const cv = crossValidate(bales, tune, { folds: 3, maxExamples, grid });
    // The drawn sessions, as crossValidate draws them: in the seeded order until maxExamples turns are in.
    const drawn = new Set<string>();
    let total = 0;
    for (const g of shuffledSessions(tune)) {
      if (total >= maxExamples) break;
      drawn.add(g);
      total += tune.filter((e) => e.group === g).length;
    }
    expect(drawn.size).toBeLessThan(new Set(tune.map((e) => e.group)).size);
    const onDrawn = (predictions: Validation["predictions"]) =>
      agreementOf(
        bales,
        tune.filter((e) => drawn.has(e.group)),
        predictions.filter((_, i) => drawn.has(tune[i].group)),
      ).kappa;
    const chosen = cv.tried.findIndex((t) => t.settings === cv.settings);
    expect(chosen).toBeGreaterThanOrEqual(0);
    // The chosen setting's kappa in `tried` is that of its drawn sessions' predictions (a nominal
    // decision is the same at any temperature), not that of every turn's.
    expect(cv.tried[chosen].kappa).toBe(onDrawn(cv.predictions));
    expect(cv.tried[chosen].kappa).not.toBe(cv.kappa);
    // Every turn is still predicted, by its fold's model at the chosen setting.
    expect(cv.predictions.every((p) => p !== undefined)).toBe(true);
    // By the chosen setting's model and not another's: validated with the chosen setting alone,
    // the fold models are the same (the grid's first setting is trained from scratch, as a
    // one-setting grid's is; later ones start from their neighbour's solution), so every
    // prediction is too, the undrawn sessions' among them, which the grid's other setting codes
    // differently.
    expect(chosen).toBe(0);
    const alone = crossValidate(bales, tune, { folds: 3, maxExamples, grid: [grid[chosen]] });
    const undrawn = (predictions: Validation["predictions"]) => predictions.filter((_, i) => !drawn.has(tune[i].group));
    expect(undrawn(cv.predictions)).toEqual(undrawn(alone.predictions));
    const other = crossValidate(bales, tune, { folds: 3, maxExamples, grid: [grid[1 - chosen]] });
    expect(undrawn(other.predictions)).not.toEqual(undrawn(alone.predictions));
  }, 120_000);

  it("the interval is the bootstrap over whole sessions of the kappa of their out-of-fold predictions", async () => {
    // Reference: resample sessions and compute agreementOf on their turns, as a reader would.
    const direct = (codebook: Codebook, examples: readonly GroupedExample[], predictions: Validation["predictions"]) => {
      const groups = [...new Set(examples.map((e) => e.group))].sort();
      const members = groups.map((g) => examples.flatMap((e, i) => (e.group === g ? [i] : [])));
      const ci = bootstrapCI(groups.length, (sample) => {
        const picked = Array.from(sample).flatMap((g) => members[g]);
        return agreementOf(
          codebook,
          picked.map((i) => examples[i]),
          picked.map((i) => predictions[i]),
        ).kappa;
      });
      return { lower: ci.lower, upper: ci.upper };
    };
    const bales = await loadCodebook("bales-ipa");
    const tune = await goldExamples("tune");
    const cv = crossValidate(bales, tune, { folds: 4, grid: [SETTINGS] });
    expect(cv.interval!.upper).toBeGreaterThan(cv.interval!.lower);
    expect(cv.interval!.lower).toBeCloseTo(direct(bales, tune, cv.predictions).lower, 12);
    expect(cv.interval!.upper).toBeCloseTo(direct(bales, tune, cv.predictions).upper, 12);
    // A scales codebook: linear-weighted kappa per scale, averaged.
    const style = (await loadCodebook("pragmatic-style")) as Extract<Codebook, { kind: "scales" }>;
    const rated = tune.map((e, i) => ({
      ...e,
      scores: Object.fromEntries(style.scales.map((sc, k) => [sc.id, 1 + ((i * (k + 2) + (e.codes?.[0]?.length ?? 0)) % sc.points)])),
    }));
    const scales = crossValidate(style, rated, { folds: 4, grid: [SETTINGS] });
    expect(scales.interval).toBeDefined();
    expect(scales.interval!.lower).toBeCloseTo(direct(style, rated, scales.predictions).lower, 12);
    expect(scales.interval!.upper).toBeCloseTo(direct(style, rated, scales.predictions).upper, 12);
  }, 120_000);

  it("a scales codebook gets one head per scale and predicts ratings inside the scale", async () => {
    const codebook = await loadCodebook("pragmatic-style");
    const scale = (codebook as Extract<Codebook, { kind: "scales" }>).scales[0];
    const polite = session(
      "p",
      Array.from({ length: 20 }, (_, i) => ["ana", i % 2 ? "Could you please kindly help, thank you so much" : "Do it now. Fix it."] as const),
    );
    const examples = polite.turns.map((_, i) => ({ terms: turnTerms(polite, i), scores: { [scale.id]: i % 2 ? 6 : 2 } }));
    const model = trainLearnedModel(codebook, examples, SETTINGS);
    const high = predictLearned(model, turnTerms(polite, 1));
    const low = predictLearned(model, turnTerms(polite, 0));
    expect(high.scores![scale.id]).toBe(6);
    expect(low.scores![scale.id]).toBe(2);
  });
});

describe("learned coder: quality on the held-out part of fixtures/coding/bales-gold.csv", () => {
  // Settings were chosen by cross-validation on the tune split only (see logistic.ts); the held-out
  // split (236 turns, 11 conversations) is used here and nowhere else.
  it("trained on the tune split, it reaches kappa >= 0.6 on held-out conversations (measured 0.642)", async () => {
    const codebook = await loadCodebook("bales-ipa");
    const [tune, heldout] = [await goldExamples("tune"), await goldExamples("heldout")];
    const model = trainLearnedModel(codebook, tune, SETTINGS);
    const result = agreementOf(
      codebook,
      heldout,
      heldout.map((e) => predictLearned(model, e.terms)),
    );
    expect(result.n).toBe(236);
    expect(result.kappa).toBeGreaterThanOrEqual(0.6);
  });
});

describe("colloquy code --coder learned", { timeout: 600_000 }, () => {
  let dir: string;
  let study: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "colloquy-learned-"));
    study = join(dir, "study");
    const rows = Papa.parse<GoldRow>(await readFile(gold, "utf8"), { header: true, skipEmptyLines: true }).data;
    for (const split of ["tune", "heldout"]) {
      const part = rows.filter((r) => r.split === split).map(({ conversation, speaker, kind, text, code }) => ({ conversation, speaker, kind, text, code }));
      await writeFile(join(dir, `${split}.csv`), Papa.unparse(part));
    }
    const columns = ["--columns", "session=conversation,speaker=speaker,text=text,kind=kind", "--codebook", "bales-ipa"];
    expect((await runCli(["import", join(dir, "tune.csv"), "--study", study, ...columns, "--code-column", "code=human:gold"])).code).toBe(0);
    expect((await runCli(["import", join(dir, "heldout.csv"), "--study", study, ...columns, "--code-column", "code=human:heldout"])).code).toBe(0);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("validates before coding, codes every turn offline, and agrees with held-out human codes", async () => {
    const run = await runCli(["code", study, "--codebook", "bales-ipa", "--coder", "learned", "--train", "human:gold", "--review-below", "0.3", "--json"]);
    expect(run.code).toBe(0);
    const [job] = JSON.parse(run.stdout).jobs;
    expect(job.learned).toMatchObject({ trainedOn: ["human:gold"], trainingSize: 451, validation: { folds: 5, n: 451 }, status: { status: "validated" } });
    expect(job.learned.validation.kappa).toBeGreaterThan(0.5);
    // Calibrated on the out-of-fold predictions: the cross-fitted ECE is lower than before.
    expect(job.learned.validation.calibration.eceAfter).toBeLessThan(job.learned.validation.calibration.eceBefore);
    expect(job.coded).toBe(685);
    expect(job.review.every((r: { confidence: number }) => r.confidence < 0.3)).toBe(true);
    const records = await readCodes(study, "bales-ipa", "learned");
    // Human-coded turns get out-of-fold predictions: agreement on them is cross-validated, not recalled.
    const gold = new Set((await readCodes(study, "bales-ipa", "human:gold")).map((r) => `${r.session}/${r.turn}`));
    for (const r of records) expect(r.provenance.outOfFold).toBe(gold.has(`${r.session}/${r.turn}`));
    // No model coded a turn it was trained on.
    for (const r of records) expect(r.provenance.heldOut).toBe(true);
    expect(records[0].provenance).toMatchObject({ coder: "learned", trainingSize: 451 });
    expect(Object.keys(records[0].provenance.probabilities as object).length).toBeGreaterThan(2);
    const agree = await runCli(["agree", study, "--codebook", "bales-ipa", "--coders", "learned,human:heldout", "--json"]);
    const kappa = JSON.stringify(JSON.parse(agree.stdout)).match(/"kappa":(-?[\d.]+)/)?.[1];
    expect(Number(kappa)).toBeGreaterThanOrEqual(0.6);
  });

  it("agree --learning-curve: kappa against training size, held out on the selected sessions or cross-validated", async () => {
    const heldout = [...new Set((await readCodes(study, "bales-ipa", "human:heldout")).map((r) => r.session))].sort();
    const run = await runCli([
      "agree",
      study,
      "--codebook",
      "bales-ipa",
      "--coders",
      "learned,human:heldout",
      "--learning-curve",
      "--sessions",
      heldout.join(","),
      "--bootstrap",
      "0",
      "--json",
    ]);
    expect(run.stderr).toBe("");
    const curve = JSON.parse(run.stdout).learningCurve;
    expect(curve).toMatchObject({ learner: "learned", trainedOn: ["human:gold"], reference: "human:heldout", method: "held-out", pool: 451, evaluated: 236 });
    expect(curve.points.map((p: { size: number }) => p.size)).toEqual([25, 50, 100, 200, 400, 451]);
    for (const p of curve.points) expect(p).toMatchObject({ n: 236, seeds: 3 });
    const kappas = curve.points.map((p: { kappa: number }) => p.kappa);
    expect(kappas.at(-1)).toBeGreaterThanOrEqual(0.55);
    expect(kappas[0]).toBeLessThan(kappas.at(-1));
    // All the training codes: every seed trains the same model, so the seeds agree.
    expect(curve.points.at(-1).high).toBe(curve.points.at(-1).low);
    const text = await runCli([
      "agree",
      study,
      "--codebook",
      "bales-ipa",
      "--coders",
      "learned,human:heldout",
      "--learning-curve",
      "--sessions",
      heldout.join(","),
      "--bootstrap",
      "0",
    ]);
    expect(text.stdout).toMatch(
      /learning curve of learned \(trained on growing parts of 451 turn\(s\) coded by human:gold outside the selection; kappa against human:heldout on its 236 turn\(s\) in the selection\):\n\s+25 training turns {2}kappa [\d.]+ \(seeds [\d.]+-[\d.]+, 3 seeds\)/,
    );
    // A learning curve needs a learned coder.
    const none = await runCli(["agree", study, "--codebook", "bales-ipa", "--coders", "human:gold,human:heldout", "--learning-curve"]);
    expect(none.stderr).toContain("--learning-curve needs a learned coder among --coders");
  });

  it("re-runs code nothing until the human codes change; then every turn is coded again", async () => {
    const again = JSON.parse((await runCli(["code", study, "--codebook", "bales-ipa", "--coder", "learned", "--train", "human:gold", "--json"])).stdout)
      .jobs[0];
    expect(again.coded).toBe(0);
    // A new human code (on a held-out turn) changes the training set, so the model's codes are redone.
    const [first] = await readCodes(study, "bales-ipa", "human:heldout");
    const sessionFile = JSON.parse(await readFile(join(study, "sessions", `${first.session}.json`), "utf8")) as Session;
    const coded = sessionFile.turns.find((t) => t.id === first.turn)!;
    await appendCodes(study, [{ ...first, coder: "human:gold", fingerprint: turnFingerprint(coded), provenance: {}, createdAt: new Date().toISOString() }]);
    const redo = JSON.parse((await runCli(["code", study, "--codebook", "bales-ipa", "--coder", "learned", "--train", "human:gold", "--json"])).stdout).jobs[0];
    expect(redo.coded).toBe(685);
    expect(redo.learned.trainingSize).toBe(452);
  });

  it("sample --strategy uncertain picks the turns nobody coded that the learned coder is least sure about", async () => {
    const active = join(dir, "active");
    const columns = ["--columns", "session=conversation,speaker=speaker,text=text,kind=kind", "--codebook", "bales-ipa"];
    expect((await runCli(["import", join(dir, "tune.csv"), "--study", active, ...columns, "--code-column", "code=human:gold"])).code).toBe(0);
    expect((await runCli(["import", join(dir, "heldout.csv"), "--study", active, ...columns])).code).toBe(0);
    expect((await runCli(["code", active, "--codebook", "bales-ipa", "--coder", "learned", "--train", "human:gold"])).code).toBe(0);
    const out = join(dir, "next.csv");
    const run = await runCli(["sample", active, "--size", "10", "--strategy", "uncertain", "--codebook", "bales-ipa", "--out", out]);
    expect(run.stderr).toBe("");
    const rows = Papa.parse<{ session: string; turn: string }>((await readFile(out, "utf8")).trim(), { header: true }).data;
    expect(rows).toHaveLength(10);
    // Nobody coded them; within a session, no uncoded turn the coder gave the same code is less
    // certain (a smaller margin between its two likeliest codes) than the most certain one picked
    // there; and the picks are spread over the codes the coder predicted (the per-code order).
    const learned = await readCodes(active, "bales-ipa", "learned");
    const margin = new Map(learned.map((r) => [`${r.session}/${r.turn}`, r.provenance.margin as number]));
    const code = new Map(learned.map((r) => [`${r.session}/${r.turn}`, r.codes![0]]));
    const gold = new Set((await readCodes(active, "bales-ipa", "human:gold")).map((r) => `${r.session}/${r.turn}`));
    const picked = rows.map((r) => `${r.session}/${r.turn}`);
    expect(picked.some((k) => gold.has(k))).toBe(false);
    for (const k of picked) {
      const [session] = k.split("/");
      const mine = picked.filter((p) => p.startsWith(`${session}/`) && code.get(p) === code.get(k));
      const highest = Math.max(...mine.map((p) => margin.get(p)!));
      const lower = [...margin].filter(
        ([p, m]) => p.startsWith(`${session}/`) && code.get(p) === code.get(k) && !gold.has(p) && !mine.includes(p) && m < highest,
      );
      expect(lower).toEqual([]);
    }
    expect(new Set(picked.map((k) => code.get(k))).size).toBeGreaterThan(3);
    // Spread: 11 uncoded sessions, 10 turns, so no session gives more than one.
    expect(new Set(rows.map((r) => r.session)).size).toBe(10);
    // The same seed gives the same sample; the codebook defaults to the one the coder coded.
    const first = await readFile(out, "utf8");
    await runCli(["sample", active, "--n", "10", "--strategy", "uncertain", "--out", out]);
    expect(await readFile(out, "utf8")).toBe(first);
    expect((await runCli(["sample", active, "--n", "10", "--strategy", "uncertain", "--coder", "nobody", "--out", out])).stderr).toContain(
      "sample --strategy uncertain: no --codebook given, and",
    );
  });

  it("says what is missing when there is nothing to learn from", async () => {
    const none = await runCli(["code", study, "--codebook", "bales-ipa", "--coder", "learned"]);
    expect(none.code).not.toBe(0);
    expect(none.stderr).toContain("--train human:alice");
    const unknown = await runCli(["code", study, "--codebook", "bales-ipa", "--coder", "learned", "--train", "human:nobody"]);
    expect(unknown.stderr).toContain("no codes of bales-ipa by human:nobody");
  });
});

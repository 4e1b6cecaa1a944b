import { bootstrapCI } from "../../analysis/reliability/bootstrap.js";
import { cohenKappa, kappaOfMatrix } from "../../analysis/reliability/kappa.js";
import { mulberry32, shuffleInPlace } from "../../util/random.js";
import type { Codebook } from "../codebook/schema.js";
import { vectorise, type Idf, type SparseVector } from "./features.js";
import { calibrate, type Calibration, type Scored } from "./calibration.js";
import {
  averageScores,
  decide,
  modelScores,
  oneView,
  trainingFeatures,
  trainLearnedModel,
  type LearnedModel,
  type ModelSettings,
  type Prediction,
  type TrainingExample,
} from "./model.js";

/**
 * Cross-validation grouped by session: the sessions are dealt into folds, and each fold is
 * predicted by a model trained on the others, so no session is in both training and evaluation
 * (turns of one conversation are alike; a random split of turns would flatter the coder). It
 * chooses the model's regularisation by the pooled out-of-fold kappa, calibrates the probabilities on the out-of-fold predictions of the
 * chosen settings, and bootstraps the kappa over sessions for an interval. The out-of-fold
 * predictions are what the learned coder stores for the human-coded turns, so `colloquy agree`
 * between it and the human coders is an honest estimate, never a re-reading of its own training
 * answers. The kappa is that of the best of SETTINGS_GRID's settings, so it can be a little
 * optimistic (the choice was made on the same folds); bench/learned.ts compares it with held-out
 * figures.
 */

export interface GroupedExample extends TrainingExample {
  /** Session id: the unit kept together in one fold. */
  group: string;
}

/** Agreement of predictions with the human codes. */
export interface Agreement {
  /**
   * Cohen's kappa between the human codes and the predictions (nominal: first code; scales:
   * linear-weighted, averaged over scales). NaN when nothing could be compared.
   */
  kappa: number;
  /** Percent agreement on the same pairs (scales: exact rating). */
  agreement: number;
  /** Turns compared. */
  n: number;
  /** Scales codebooks: ratings compared (a turn has one per scale it was rated on). */
  ratings?: number;
}

export interface Validation extends Agreement {
  folds: number;
  /** Sessions the folds were made of. */
  sessions: number;
  /**
   * The settings chosen, and the pooled kappa of each setting tried: over the out-of-fold turns of
   * the sessions the folds were trained on (every session but in a large study: MAX_VALIDATION_EXAMPLES).
   */
  settings: ModelSettings;
  tried: { settings: ModelSettings; kappa: number }[];
  /** At the chosen C, when the setting has both models: which of them codes (ViewComparison). */
  views?: ViewComparison;
  /** Out-of-fold prediction per example (same order), calibrated; undefined when its fold could not be trained. */
  predictions: (Prediction | undefined)[];
  /** 95% percentile bootstrap interval of the kappa, resampling sessions (1,000 replicates). */
  interval?: { lower: number; upper: number };
  calibration: Calibration;
}

/** Which model codes: the text model alone, the text-and-context model alone, or their average. */
export type View = "text" | "context" | "average";

/**
 * The pooled out-of-fold kappa of each model of the chosen setting alone and of their average
 * (the same fold models: no extra fit), and the 95% interval (paired bootstrap over sessions) of
 * each model's kappa minus the average's. The average codes unless one model alone is
 * measurably better than it (chooseView: its interval above 0, on at least MIN_VIEW_SESSIONS
 * sessions, with few undefined replicates): then that model alone is trained and codes,
 * and the other is not fitted at all. On a few hundred codes the folds cannot tell the models
 * apart (on ChatCollab and our corpus no interval cleared 0, so the average, the better held-out
 * form there, stays: docs/learned-coder.md); on thousands they can. Nominal codebooks only: their
 * decisions (the most likely code, or every code over one half) do not change with the
 * calibration temperature, so comparing uncalibrated decisions compares what would code; a scales
 * codebook's rating (the one nearest the expected rating) does change with it, so there the
 * average always codes and nothing is compared.
 */
export interface ViewComparison {
  chosen: View;
  kappa: Record<View, number>;
  /** Each model's kappa minus the average's: 95% interval, and the share of bootstrap replicates left out as undefined. */
  overAverage: { text?: ViewInterval; context?: ViewInterval };
  /** Sessions with out-of-fold predictions (the units the bootstrap resamples). */
  sessions: number;
}

export interface ViewInterval {
  lower: number;
  upper: number;
  /** Share of the bootstrap replicates whose statistic was undefined (NaN) and were left out. */
  undefinedShare: number;
}

/**
 * Sessions with out-of-fold predictions needed before one model alone may replace the average.
 * The percentile bootstrap over n sessions is narrow by a factor of about sqrt((n - 1) / n) and
 * ignores that the spread is itself estimated from n sessions, so under normality its nominal 95%
 * interval covers about 60% at 2 sessions, 81% at 4 (and 4 sessions have only 35 distinct
 * resamples), 90% at 10 and 93% at 20 (2 P(|t(n-1)| < 1.96 sqrt((n-1)/n)) - 1). At 10 sessions
 * "interval above 0" is then a one-sided test at about 5% rather than 2.5%: still a test, and a
 * wrong replacement costs little (each model alone was within a few hundredths of the average on
 * both corpora), while asking for 20 would keep studies of 10-19 coded sessions from ever leaving
 * the average. Below 10 the interval is no 95% test, so the average codes.
 */
export const MIN_VIEW_SESSIONS = 10;

/**
 * Largest share of bootstrap replicates that may be undefined (NaN: a resample whose kappa has no
 * chance agreement to correct, e.g. one category only) for the interval to decide: it is taken
 * over the defined replicates only, a selected subset of the resamples, so when more than this
 * share are left out it is no 95% interval of the difference, and the average codes.
 */
export const MAX_UNDEFINED_SHARE = 0.05;

/** Which model codes: the better model alone whose gain over the average is measurably above 0 (see MIN_VIEW_SESSIONS, MAX_UNDEFINED_SHARE), else the average. */
export function chooseView(comparison: Omit<ViewComparison, "chosen">): View {
  if (comparison.sessions < MIN_VIEW_SESSIONS) return "average";
  const better = (["context", "text"] as const).filter((v) => {
    const gain = comparison.overAverage[v];
    return gain !== undefined && gain.lower > 0 && gain.undefinedShare <= MAX_UNDEFINED_SHARE;
  });
  return better.sort((a, b) => comparison.kappa[b] - comparison.kappa[a])[0] ?? "average";
}

/** ViewComparison of the chosen setting's out-of-fold scores: averaged (`scored`) and per model (`parts`). */
function compareViews(
  codebook: Codebook,
  examples: readonly GroupedExample[],
  scored: readonly (Scored | undefined)[],
  parts: readonly (Float64Array[][] | undefined)[],
  seed?: number,
): ViewComparison {
  const decided = (items: readonly (Scored | undefined)[]) => items.map((x) => x && decide(x.model, x.scores));
  const text = decided(viewScored(scored, parts, false));
  const context = decided(viewScored(scored, parts, true));
  const average = decided(scored);
  const kappaOf = (p: readonly (Prediction | undefined)[]) => agreementOf(codebook, examples, p).kappa;
  const kappa = { text: kappaOf(text), context: kappaOf(context), average: kappaOf(average) };
  const overAverage = {
    text: sessionBootstrap(codebook, examples, [text, average], ([a, b]) => a - b, seed),
    context: sessionBootstrap(codebook, examples, [context, average], ([a, b]) => a - b, seed),
  };
  const sessions = new Set(examples.flatMap((e, i) => (scored[i] ? [e.group] : []))).size;
  return { chosen: chooseView({ kappa, overAverage, sessions }), kappa, overAverage, sessions };
}

/** The out-of-fold scores of one model of each fold's pair: the text model, or (`context`) the text-and-context model. */
function viewScored(scored: readonly (Scored | undefined)[], parts: readonly (Float64Array[][] | undefined)[], context: boolean): (Scored | undefined)[] {
  const v = context ? 1 : 0;
  const models = new Map<LearnedModel, LearnedModel>();
  return scored.map((x, i) => {
    if (!x) return undefined;
    if (!models.has(x.model)) models.set(x.model, oneView(x.model, context));
    return { model: models.get(x.model)!, scores: parts[i]!.map((h) => h[v]), example: x.example };
  });
}

/**
 * Settings tried, in order (the first of equal kappas wins, so the more regularised): scikit-learn's
 * default C of 1 down to a tenth of its regularisation (sparse text features often want little),
 * every one with balanced class weights (rare categories are the ones a researcher most needs found)
 * and both models (the text model and the text-and-context model, model.ts), whose average C is
 * chosen by. Choosing also between balanced and unweighted classes, or with and without the
 * context model by the higher kappa, made the held-out figures no better and the choice noisier on
 * ChatCollab (bench/learned-quality.ts; docs/learned-coder.md); at the chosen C, one model alone
 * replaces the average only where it is measurably better (ViewComparison).
 * Three settings x two models x five folds (three in a large study) keep validation to seconds.
 */
export const SETTINGS_GRID: readonly ModelSettings[] = [1, 3, 10].map((c) => ({ c, text: true, context: true, balanced: true }));

/**
 * Above this many coded turns, the fold models are trained on whole sessions drawn (seeded) until
 * about this many turns are in: training 5 x 4 models on 20,000 turns would cost minutes. Every
 * session, drawn or not, is still predicted by the model of its own fold, which never saw it.
 */
export const MAX_VALIDATION_EXAMPLES = 2_000;

/**
 * Folds when there are more codes than MAX_VALIDATION_EXAMPLES (fewer, if fewer were asked for):
 * every fold trains three settings x two models, and at 20,000 codes the folds were about a third
 * of the training time (bench/learned.ts). Three folds fit half as many turns in all as five (each
 * model on about 1,300 of the drawn turns rather than 1,600), while every session is still predicted by a
 * model that never saw it, so the estimate and its interval keep their meaning; they are those of a
 * model trained on fewer turns than the final one, so if anything pessimistic.
 */
export const LARGE_STUDY_FOLDS = 3;

/** The examples' sessions in a seeded order. */
export function shuffledSessions(examples: readonly GroupedExample[], seed = 1): string[] {
  return shuffleInPlace([...new Set(examples.map((e) => e.group))].sort(), mulberry32(seed));
}

export interface CrossValidateOptions {
  folds?: number;
  seed?: number;
  /** Settings to choose from (default SETTINGS_GRID). */
  grid?: readonly ModelSettings[];
  maxExamples?: number;
}

export function crossValidate(codebook: Codebook, examples: readonly GroupedExample[], options: CrossValidateOptions = {}): Validation {
  const grid = options.grid ?? SETTINGS_GRID;
  // Sessions in a seeded order; keep the first up to the validation budget; deal them into folds.
  const shuffled = shuffledSessions(examples, options.seed);
  const sizes = new Map<string, number>();
  for (const e of examples) sizes.set(e.group, (sizes.get(e.group) ?? 0) + 1);
  const drawn = new Set<string>();
  let total = 0;
  for (const g of shuffled) {
    if (total >= (options.maxExamples ?? MAX_VALIDATION_EXAMPLES)) break;
    drawn.add(g);
    total += sizes.get(g)!;
  }
  const requested = options.folds ?? 5;
  const folds = Math.min(drawn.size < shuffled.length ? Math.min(requested, LARGE_STUDY_FOLDS) : requested, drawn.size);
  const none = { kappa: NaN, agreement: NaN, n: 0 };
  if (folds < 2) {
    return { folds, sessions: shuffled.length, settings: grid[0], tried: [], predictions: examples.map(() => undefined), ...none, calibration: noCalibration };
  }
  // Every session has a fold (the drawn ones first, so they spread evenly); only drawn ones train.
  const foldOf = new Map(shuffled.map((g, i) => [g, i % folds]));
  const fold = examples.map((e) => foldOf.get(e.group)!);
  // scored[setting][example]: the example's scores from its fold's model at that setting, and
  // parts[setting][example] those of each of the model's views (head x view). The settings are
  // compared on the drawn sessions' turns only (all of them but in a large study): only the chosen
  // setting's fold models then score the other sessions' turns (below), where scoring every turn
  // at every setting was 18,000 more turns per setting at 20,000 codes, kept in memory until the end.
  const scored: (Scored | undefined)[][] = grid.map(() => examples.map(() => undefined));
  const parts: (Float64Array[][] | undefined)[][] = grid.map(() => examples.map(() => undefined));
  const scoreWith = (s: number, model: LearnedModel, i: number, x: SparseVector) => {
    parts[s][i] = modelScores(model, x);
    scored[s][i] = { model, scores: parts[s][i]!.map(averageScores), example: examples[i] };
  };
  // Per fold: its idf and each setting's model (undefined where the fold could not be trained).
  const foldModels: { idf: Idf; models: (LearnedModel | undefined)[] }[] = [];
  for (let f = 0; f < folds; f++) {
    const train = examples.filter((e, i) => drawn.has(e.group) && fold[i] !== f);
    // The settings share the training part's features, and the fold's turns are turned into
    // vectors once (under its idf) for all of them.
    const features = trainingFeatures(train);
    const held = examples.flatMap((e, i) => (fold[i] === f && drawn.has(e.group) ? [i] : []));
    const vectors = held.map((i) => vectorise(examples[i].terms, features.idf));
    let previous: LearnedModel | undefined;
    const models = grid.map((settings, s) => {
      let model: LearnedModel;
      try {
        // The neighbouring setting's solution on the same data is a good start (a warm start).
        model = trainLearnedModel(codebook, train, settings, { start: previous, features });
      } catch {
        return undefined; // a fold whose training part has one category only: its turns stay unpredicted
      }
      previous = model;
      held.forEach((i, j) => scoreWith(s, model, i, vectors[j]));
      return model;
    });
    foldModels.push({ idf: features.idf, models });
  }
  const tried = grid.map((settings, s) => ({
    settings,
    kappa: agreementOf(
      codebook,
      examples,
      scored[s].map((x) => x && decide(x.model, x.scores)),
    ).kappa,
  }));
  const best = tried.reduce((b, t, s) => (t.kappa > tried[b].kappa ? s : b), 0);
  // The sessions not drawn, each by its fold's model at the chosen setting.
  examples.forEach((e, i) => {
    const model = foldModels[fold[i]].models[best];
    if (!drawn.has(e.group) && model) scoreWith(best, model, i, vectorise(e.terms, foldModels[fold[i]].idf));
  });
  // Nominal codebooks only (ViewComparison): a scales codebook's average always codes.
  const views =
    codebook.kind === "nominal" && grid[best].text && grid[best].context
      ? compareViews(codebook, examples, scored[best], parts[best], options.seed)
      : undefined;
  const settings = views ? { ...grid[best], text: views.chosen !== "context", context: views.chosen !== "text" } : grid[best];
  const chosen = views && views.chosen !== "average" ? viewScored(scored[best], parts[best], views.chosen === "context") : scored[best];
  // The temperature is fitted on the drawn sessions' out-of-fold scores (all of them but in a
  // large study): one number needs no more, and fitting it costs a pass over them per step.
  const present = chosen.flatMap((x, i) => (x && drawn.has(examples[i].group) ? [i] : []));
  const calibration =
    present.length > 0
      ? calibrate(
          present.map((i) => chosen[i]!),
          present.map((i) => fold[i]),
        )
      : noCalibration;
  const predictions = chosen.map((x) => x && decide(x.model, x.scores, calibration.temperature));
  return {
    folds,
    sessions: shuffled.length,
    settings,
    tried,
    ...(views ? { views } : {}),
    predictions,
    ...agreementOf(codebook, examples, predictions),
    interval: sessionInterval(codebook, examples, predictions, options.seed),
    calibration,
  };
}

const noCalibration: Calibration = { temperature: 1, eceBefore: NaN, eceAfter: NaN };

/**
 * Percentile bootstrap of the kappa over sessions: whole sessions are resampled, as they were
 * sampled. Each session's pairs are counted once into a confusion matrix (per scale for a scales
 * codebook); a resample's kappa is that of the sum of its sessions' matrices, the same number as
 * `agreementOf` on its turns, at a cost that does not grow with the turns.
 */
function sessionInterval(
  codebook: Codebook,
  examples: readonly GroupedExample[],
  predictions: readonly (Prediction | undefined)[],
  seed = 1,
): { lower: number; upper: number } | undefined {
  const ci = sessionBootstrap(codebook, examples, [predictions], ([kappa]) => kappa, seed);
  return ci && { lower: ci.lower, upper: ci.upper };
}

/**
 * Percentile bootstrap over sessions of `statistic` of the kappas of several sets of predictions
 * of the same examples, each resample the same sessions for every set (so a difference is paired).
 */
export function sessionBootstrap(
  codebook: Codebook,
  examples: readonly GroupedExample[],
  sets: readonly (readonly (Prediction | undefined)[])[],
  statistic: (kappas: number[]) => number,
  seed = 1,
): ViewInterval | undefined {
  const groups = [...new Set(examples.map((e) => e.group))].sort();
  if (groups.length < 2) return undefined;
  const groupIndex = new Map(groups.map((g, i) => [g, i]));
  // Each group's matrix as one flat array, so a resample's sum is one loop per group (the same
  // additions, cell by cell, in the order of the resample).
  const flatSets = sets.map((predictions) =>
    confusionTables(codebook, examples, predictions, (i) => groupIndex.get(examples[i].group)!, groups.length).map(({ perGroup, weights }) => ({
      labels: perGroup[0].length,
      cells: perGroup.map((matrix) => Float64Array.from(matrix.flat())),
      weights,
    })),
  );
  const kappaOfSample = (sample: Int32Array, { labels, cells, weights }: (typeof flatSets)[number][number]) => {
    const sum = new Float64Array(labels * labels);
    for (const g of sample) {
      const m = cells[g];
      for (let a = 0; a < m.length; a++) sum[a] += m[a];
    }
    const rows = Array.from({ length: labels }, (_, r) => Array.from(sum.subarray(r * labels, (r + 1) * labels)));
    return kappaOfMatrix(rows, weights).kappa;
  };
  const ci = bootstrapCI(
    groups.length,
    (sample) =>
      statistic(
        flatSets.map((tables) => {
          const kappas = tables.map((table) => kappaOfSample(sample, table)).filter(Number.isFinite);
          return kappas.length ? kappas.reduce((a, b) => a + b, 0) / kappas.length : NaN;
        }),
      ),
    { seed },
  );
  return Number.isFinite(ci.lower) && Number.isFinite(ci.upper)
    ? { lower: ci.lower, upper: ci.upper, undefinedShare: ci.undefinedReplicates / ci.replicates }
    : undefined;
}

/** Per group, the confusion matrix (human x machine) of what `agreementOf` compares: one table for a nominal codebook, one per scale. */
function confusionTables(
  codebook: Codebook,
  examples: readonly Pick<TrainingExample, "codes" | "scores">[],
  predictions: readonly (Pick<Prediction, "codes" | "scores"> | undefined)[],
  groupOf: (i: number) => number,
  groups: number,
): { perGroup: number[][][]; weights?: "linear" }[] {
  const table = (labels: number, pairs: (i: number) => [number, number] | undefined, weights?: "linear") => {
    const perGroup = Array.from({ length: groups }, () => Array.from({ length: labels }, () => new Array<number>(labels).fill(0)));
    examples.forEach((_, i) => {
      const pair = pairs(i);
      if (pair) perGroup[groupOf(i)][pair[0]][pair[1]]++;
    });
    return { perGroup, weights };
  };
  if (codebook.kind === "nominal") {
    const used = new Set(examples.flatMap((e, i) => (e.codes?.[0] && predictions[i]?.codes?.[0] ? [e.codes[0], predictions[i]!.codes![0]] : [])));
    // Labels in the codebook's order (others after, sorted), not in order of first use: two sets of
    // predictions then share the positions of the codes both use, so where they give the same codes
    // their kappas are the same number, not one that differs in its last bits (summed in another order),
    // whose sign would otherwise decide a paired difference of 0.
    const order = new Map(codebook.categories.map((c, i) => [c.id, i]));
    const rank = (code: string) => order.get(code) ?? order.size;
    const labels = [...used].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
    const position = new Map(labels.map((c, i) => [c, i]));
    return [
      table(position.size, (i) => {
        const human = position.get(examples[i].codes?.[0] ?? "");
        const machine = position.get(predictions[i]?.codes?.[0] ?? "");
        return human === undefined || machine === undefined ? undefined : [human, machine];
      }),
    ];
  }
  return codebook.scales.map((scale) =>
    table(
      scale.points,
      (i) => {
        const human = examples[i].scores?.[scale.id];
        const machine = predictions[i]?.scores?.[scale.id];
        // As cohenKappa with labels 1..points: a rating outside them is left out.
        const inRange = (r: unknown): r is number => typeof r === "number" && Number.isInteger(r) && r >= 1 && r <= scale.points;
        return inRange(human) && inRange(machine) ? [human - 1, machine - 1] : undefined;
      },
      "linear",
    ),
  );
}

/** Kappa and percent agreement of predictions against the examples' human codes. */
export function agreementOf(
  codebook: Codebook,
  examples: readonly Pick<TrainingExample, "codes" | "scores">[],
  predictions: readonly (Pick<Prediction, "codes" | "scores"> | undefined)[],
): Agreement {
  if (codebook.kind === "nominal") {
    const pairs = examples.flatMap((e, i) => (predictions[i]?.codes?.[0] && e.codes?.[0] ? [[e.codes[0], predictions[i]!.codes![0]] as const] : []));
    if (pairs.length === 0) return { kappa: NaN, agreement: NaN, n: 0 };
    const k = cohenKappa(
      pairs.map((p) => p[0]),
      pairs.map((p) => p[1]),
    );
    return { kappa: k.kappa, agreement: pairs.filter(([a, b]) => a === b).length / pairs.length, n: pairs.length };
  }
  const kappas: number[] = [];
  let same = 0;
  let ratings = 0;
  const turns = new Set<number>();
  for (const scale of codebook.scales) {
    const pairs = examples.flatMap((e, i) => {
      const human = e.scores?.[scale.id];
      const machine = predictions[i]?.scores?.[scale.id];
      return typeof human === "number" && typeof machine === "number" ? [[human, machine, i] as const] : [];
    });
    if (pairs.length === 0) continue;
    const labels = Array.from({ length: scale.points }, (_, i) => i + 1);
    const k = cohenKappa(
      pairs.map((p) => p[0]),
      pairs.map((p) => p[1]),
      { weights: "linear", labels },
    );
    if (Number.isFinite(k.kappa)) kappas.push(k.kappa);
    same += pairs.filter(([a, b]) => a === b).length;
    ratings += pairs.length;
    for (const p of pairs) turns.add(p[2]);
  }
  return {
    kappa: kappas.length ? kappas.reduce((a, b) => a + b, 0) / kappas.length : NaN,
    agreement: ratings ? same / ratings : NaN,
    n: turns.size,
    ratings,
  };
}

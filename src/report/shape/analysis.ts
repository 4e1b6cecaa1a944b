import { tTwoSided } from "../../analysis/tests/distributions.js";
import type { Session } from "../../transcript/schema.js";
import type { AgreementSet, CompareSet, ConceptsSet, TopicNode, TopicsSet } from "../types.js";
import { conditionOf } from "./common.js";

/**
 * Views that show results of the analysis commands read their JSON files defensively: these are
 * computed outputs that may be missing, from an older version or half-written, so every field
 * used is checked and a file that does not fit becomes a warning plus the view's empty state.
 */
type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
export const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
export const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

const interval = (v: unknown): [number, number] | undefined => {
  if (!isObject(v)) return undefined;
  const lo = num(v.lower);
  const hi = num(v.upper);
  return lo !== undefined && hi !== undefined ? [lo, hi] : undefined;
};

/** Map one `agreement-<codebook>.json` (AgreementReport of `colloquy agree`) to the view's sets, one per variable. */
export function agreementFromReport(file: string, report: unknown): AgreementSet[] {
  if (!isObject(report) || report.kind !== "agreement") throw new Error("not an agreement report (kind is not \"agreement\")");
  const source = isObject(report.source) ? report.source : {};
  const codebook = str(source.codebook) ?? file.replace(/^agreement-|\.json$/g, "");
  const coders = arr(report.coders).map(String);
  const reference = str(report.reference) ?? coders[0];
  const variables = arr(report.variables).filter(isObject);
  if (variables.length === 0) throw new Error("no variables");
  const rows = isObject(report.disagreements) ? arr(report.disagreements.rows).filter(isObject) : [];
  return variables.map((v) => {
    const name = str(v.name) ?? "codes";
    const labels = arr(v.labels).map(String);
    const pairs = arr(v.pairs).filter(isObject);
    const alphas = arr(v.alpha).filter(isObject);
    const alpha = alphas.find((a) => a.level === v.level) ?? alphas[0];
    const refPair = pairs.find((p) => p.a === reference) ?? pairs[0];
    const matrix = refPair ? arr(refPair.confusion).map((row) => arr(row).map((n) => num(n) ?? 0)) : [];
    const scores = arr(v.perCategory).filter(isObject)[0];
    return {
      codebook: name === "codes" ? codebook : `${codebook} · ${name}`,
      file,
      coders,
      pairs: pairs.map((p) => ({
        a: String(p.a),
        b: String(p.b),
        n: num(p.n) ?? 0,
        percent: num(p.agreement),
        kappa: num(p.kappa),
        kappaCI: interval(p.kappaCI),
        // Krippendorff's alpha is over all coders; it is the pair's alpha only with two coders.
        alpha: coders.length === 2 && alpha ? num(alpha.alpha) : undefined,
        alphaCI: coders.length === 2 && alpha ? interval(alpha.ci) : undefined,
        ac1: num(p.ac1),
      })),
      overall:
        alpha && num(alpha.alpha) !== undefined
          ? { level: String(alpha.level), alpha: num(alpha.alpha)!, alphaCI: interval(alpha.ci), fleiss: isObject(v.fleiss) ? num(v.fleiss.kappa) : undefined }
          : undefined,
      confusion:
        refPair && matrix.length === labels.length && matrix.every((r) => r.length === labels.length)
          ? { reference: String(refPair.a), other: String(refPair.b), labels, matrix }
          : undefined,
      perCategory: scores
        ? arr(scores.categories)
            .filter(isObject)
            .map((c) => ({ code: String(c.label), precision: num(c.precision) ?? null, recall: num(c.recall) ?? null, f1: num(c.f1) ?? null, support: num(c.support) }))
        : [],
      disagreements: rows
        .filter((r) => (str(r.variable) ?? "codes") === name)
        .map((r) => ({
          session: String(r.session),
          turn: String(r.turn),
          speaker: str(r.speaker),
          text: str(r.text) ?? "(turn not found in the study's sessions)",
          codes: Object.fromEntries(Object.entries(isObject(r.values) ? r.values : {}).map(([k, val]) => [k, String(val)])),
        })),
    };
  });
}

export function readAgreement(analysis: Map<string, unknown>, warnings: string[]): AgreementSet[] {
  const out: AgreementSet[] = [];
  for (const [file, value] of analysis) {
    if (!/^agreement-.+\.json$/.test(file)) continue;
    try {
      out.push(...agreementFromReport(file, value));
    } catch (error) {
      warnings.push(`analysis/${file}: ${(error as Error).message}; re-run \`colloquy agree\` to refresh it`);
    }
  }
  return out;
}

/**
 * Take `colloquy compare`'s numbers for the coder its file was computed from (its collapse and
 * normalisation are authoritative), and its tests. Other coders keep the numbers shaped from codes.
 */
export function attachCompareTests(set: CompareSet, analysis: Map<string, unknown>, warnings: string[]): CompareSet {
  const file = `compare-${set.codebook}.json`;
  const report = analysis.get(file);
  if (report === undefined) return set;
  try {
    if (!isObject(report) || !isObject(report.differences)) throw new Error("no differences table");
    if (report.coder !== set.coder) return set;
    const diff = report.differences;
    const control = str(diff.control);
    if (!control) return set;
    const rows = arr(diff.rows).filter(isObject);
    const labels = arr(report.labels).map(String);
    const conditions = arr(report.conditions).filter(isObject);
    const known = new Map(set.codes.map((c) => [c.id, c.label]));
    const byCondition = isObject(report.frequencies) ? arr(report.frequencies.byCondition).filter(isObject) : [];
    const counts: CompareSet["counts"] = {};
    for (const row of byCondition) {
      const key = String(row.key);
      counts[key] = Object.fromEntries(labels.map((l) => [l, num(isObject(row.counts) ? row.counts[l] : undefined) ?? 0]));
    }
    const options = isObject(report.options) ? report.options : {};
    const tests = arr(report.tests)
      .filter(isObject)
      .map((t) => ({
        label: [t.condition && t.reference ? `${t.condition} vs ${t.reference}` : t.across ? `across ${t.across}` : "", t.code ? `· ${t.code}` : ""].join(" ").trim(),
        test: str(t.test) ?? "test",
        n: num(t.n),
        statistic: num(t.statistic),
        p: num(t.p),
        pAdjusted: num(t.pHolm),
      }));
    return {
      ...set,
      control,
      conditions: conditions.map((c) => String(c.name)).filter((c) => c !== control),
      codes: labels.map((l) => ({ id: l, label: known.get(l) ?? l })),
      runs: Object.fromEntries(conditions.map((c) => [String(c.name), num(c.runs) ?? num(c.sessions) ?? 0])),
      normalised: diff.basis === "per-run",
      counts: Object.keys(counts).length ? counts : set.counts,
      cells: rows.map((r) => ({
        condition: String(r.condition),
        code: String(r.code),
        count: num(r.count) ?? 0,
        controlCount: num(r.controlCount) ?? 0,
        pctDiff: num(r.percentDifference) ?? null,
      })),
      collapse: isObject(options.collapse) ? (options.collapse as Record<string, string[]>) : set.collapse,
      dropped: Array.isArray(options.drop) ? options.drop.map(String) : set.dropped,
      tests,
      source: "analysis",
    };
  } catch (error) {
    warnings.push(`analysis/${file}: ${(error as Error).message}; showing counts from the codes instead (re-run \`colloquy compare\`)`);
    return set;
  }
}

/** Two-sided 95% t critical value for df degrees of freedom (bisection on the t distribution). */
export function tCritical95(df: number): number {
  let lo = 0;
  let hi = 100;
  for (let i = 0; i < 80; i++) {
    const mid = (lo + hi) / 2;
    if (tTwoSided(mid, df) > 0.05) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** Mean, sample SD and t-based 95% CI of a list of values. */
export function meanCI(values: number[]): { mean: number; sd?: number; ci?: [number, number]; n: number } {
  const n = values.length;
  const mean = values.reduce((a, b) => a + b, 0) / n;
  if (n < 2) return { mean, n };
  const sd = Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1));
  const half = (tCritical95(n - 1) * sd) / Math.sqrt(n);
  return { mean, sd, ci: [mean - half, mean + half], n };
}

/** Pick the first test of a comparison entry ({tests: [...]}) as {test, statistic, p, n}. */
function firstTest(comparison: unknown): TopicsSet["test"] {
  if (!isObject(comparison)) return undefined;
  const t = arr(comparison.tests).filter(isObject)[0];
  if (!t) return undefined;
  const label = [str(t.test), t.a && t.b ? `${t.a} vs ${t.b}` : undefined].filter(Boolean).join(", ");
  return { test: label || "test", statistic: num(t.statistic), p: num(t.pHolm) ?? num(t.p), n: num(t.n) };
}

/**
 * `analysis/topics.json` (TopicsReport of `colloquy topics`): each tree's merged topics (main
 * topics with sub-topics). Branching ratio = sub-topics / main topics; per condition it is taken
 * from the report's `branchingRatio` comparison (mean, SD, n, tests) when present, else
 * summarised here from the trees. CI = mean ± t(0.975, n-1) · SD / sqrt(n).
 */
export function readTopics(analysis: Map<string, unknown>, warnings: string[], sessions: Session[] = []): TopicsSet | null {
  const report = analysis.get("topics.json");
  if (report === undefined) return null;
  try {
    if (!isObject(report)) throw new Error("not an object");
    const sessionCondition = new Map(sessions.map((s) => [s.id, conditionOf(s)]));
    const trees: TopicsSet["trees"] = [];
    const ratios = new Map<string, number[]>();
    for (const entry of arr(report.trees).filter(isObject)) {
      // Current reports keep the tree under `merged`; a bare TopicTree is read as well.
      const body = isObject(entry.merged) ? entry.merged : entry;
      const session = str(entry.session) ?? str(body.session);
      if (!session) continue;
      const who = str(entry.participantName) ?? str(entry.participant) ?? str(body.participant);
      const key = str(entry.key) ?? `${session}${who ? `/${who}` : ""}`;
      const mains = arr(body.mainTopics).filter(isObject);
      const root: TopicNode = {
        id: key,
        label: `${session}${who ? ` · ${who}` : ""}`,
        children: mains.map((m, i) => ({
          id: `${key}/${str(m.id) ?? i}`,
          label: str(m.label) ?? `topic ${i + 1}`,
          turns: arr(m.turns).length,
          children: arr(m.subtopics)
            .filter(isObject)
            .map((sub, j) => ({ id: `${key}/${str(m.id) ?? i}/${str(sub.id) ?? j}`, label: str(sub.label) ?? `subtopic ${j + 1}`, turns: arr(sub.turns).length, children: [] })),
        })),
      };
      const condition = str(entry.condition) ?? sessionCondition.get(session) ?? "(none)";
      trees.push({ scope: str(entry.scope) ?? str(body.scope) ?? "session", id: root.label, condition, root });
      if (mains.length > 0) {
        const subs = mains.reduce((a, m) => a + arr(m.subtopics).length, 0);
        ratios.set(condition, [...(ratios.get(condition) ?? []), subs / mains.length]);
      }
    }
    if (trees.length === 0) throw new Error("no topic trees");
    const comparison = arr(report.conditions).filter(isObject).find((c) => c.measure === "branchingRatio");
    const branching: TopicsSet["branching"] = [];
    if (comparison && isObject(comparison.byCondition)) {
      for (const [condition, s] of Object.entries(comparison.byCondition)) {
        const mean = isObject(s) ? num(s.mean) : undefined;
        if (!isObject(s) || mean === undefined) continue;
        const n = num(s.n) ?? 0;
        const sd = num(s.sd);
        const half = sd !== undefined && n >= 2 ? (tCritical95(n - 1) * sd) / Math.sqrt(n) : undefined;
        branching.push({ condition, mean, sd, n, ci: half !== undefined ? [mean - half, mean + half] : undefined });
      }
    } else {
      for (const [condition, values] of ratios) branching.push({ condition, ...meanCI(values) });
    }
    return { trees, branching, test: firstTest(comparison) };
  } catch (error) {
    warnings.push(`analysis/topics.json: ${(error as Error).message}; re-run \`colloquy topics\``);
    return null;
  }
}

/** `analysis/concepts.json` (ConceptsReport): concept rate per condition and first mentions. */
export function readConcepts(analysis: Map<string, unknown>, warnings: string[]): ConceptsSet | null {
  const report = analysis.get("concepts.json");
  if (report === undefined) return null;
  try {
    if (!isObject(report)) throw new Error("not an object");
    const comparisons = arr(report.conditions).filter(isObject);
    const rate = comparisons.find((c) => c.measure === "sessionConceptRate") ?? comparisons.find((c) => c.measure === "conceptRate");
    const rates: ConceptsSet["rates"] = [];
    if (rate && isObject(rate.byCondition)) {
      for (const [condition, s] of Object.entries(rate.byCondition)) {
        if (!isObject(s) || num(s.mean) === undefined) continue;
        rates.push({ condition, mean: num(s.mean)!, sd: num(s.sd), n: num(s.n) ?? 0 });
      }
    }
    const firstMentions: ConceptsSet["firstMentions"] = [];
    for (const s of arr(report.sessions).filter(isObject)) {
      for (const m of arr(s.firstMentions).filter(isObject)) {
        const time = num(m.start);
        if (time !== undefined) firstMentions.push({ session: String(s.session), condition: str(s.condition), concept: String(m.concept), time });
      }
    }
    if (rates.length === 0 && firstMentions.length === 0) throw new Error("no concept rates or first mentions");
    return { rates, firstMentions, test: firstTest(rate) };
  } catch (error) {
    warnings.push(`analysis/concepts.json: ${(error as Error).message}; re-run \`colloquy concepts\``);
    return null;
  }
}

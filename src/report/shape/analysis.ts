import type { AgreementReport, AgreementInterval } from "../../analysis/agreement/index.js";
import { inPlainWords } from "../glossary.js";
import type { ConceptsReport } from "../../analysis/concepts/report.js";
import { meanInterval, type MeasureComparison } from "../../analysis/concepts/conditions.js";
import type { TopicsReport } from "../../analysis/topics/report.js";
import type { AnalysisFile } from "../load.js";
import { rerun } from "../load.js";
import type { AgreementSet, ConceptsSet, MeasureTestLine, TopicNode, TopicsSet } from "../types.js";
import { apaConditionTest } from "../apa.js";
import { agreementFiles } from "../../analysis/agreement/descriptor.js";
import { topicsFiles } from "../../analysis/topics/descriptor.js";
import { conceptsFiles } from "../../analysis/concepts/descriptor.js";

/**
 * The views that show results of the analysis commands (agreement, topics, concepts) shape
 * them from the analysis files, which src/report/load.ts has validated with their registry
 * schemas: every number here is a number of the file. A file that validates but holds nothing
 * to draw becomes a warning and the view's empty state.
 */

/** A finite number, else undefined (undefined statistics are NaN after reading, null in the file). */
const finite = (v: number | null | undefined): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

const interval = (ci: AgreementInterval | null | undefined): [number, number] | undefined => {
  const lo = finite(ci?.lower);
  const hi = finite(ci?.upper);
  return lo !== undefined && hi !== undefined ? [lo, hi] : undefined;
};

/** Map one `agreement-<codebook>.json` (AgreementReport of `colloquy agree`) to the view's sets, one per variable. */
export function agreementFromReport(file: string, report: AgreementReport): AgreementSet[] {
  const codebook = report.source.type === "study" ? report.source.codebook : (agreementFiles.agreement.match(file)?.[0] ?? file);
  const coders = report.coders;
  const reference = report.reference;
  if (report.variables.length === 0) throw new Error("no variables");
  return report.variables.map((v) => {
    const alpha = v.alpha.find((a) => a.level === v.level) ?? v.alpha[0];
    const refPair = v.pairs.find((p) => p.a === reference) ?? v.pairs[0];
    const labels = v.labels.map(String);
    const matrix = refPair?.confusion ?? [];
    const scores = v.perCategory[0];
    return {
      codebook: v.name === "codes" ? codebook : `${codebook} · ${v.name}`,
      file,
      coders,
      pairs: v.pairs.map((p) => ({
        a: p.a,
        b: p.b,
        n: p.n,
        percent: finite(p.agreement),
        kappa: finite(p.kappa),
        kappaCI: interval(p.kappaCI),
        // Krippendorff's alpha is over all coders; it is the pair's alpha only with two coders.
        alpha: coders.length === 2 && alpha ? finite(alpha.alpha) : undefined,
        alphaCI: coders.length === 2 && alpha ? interval(alpha.ci) : undefined,
        ac1: finite(p.ac1),
      })),
      overall:
        alpha && finite(alpha.alpha) !== undefined
          ? { level: alpha.level, alpha: alpha.alpha, alphaCI: interval(alpha.ci), fleiss: finite(v.fleiss?.kappa) }
          : undefined,
      confusion:
        refPair && matrix.length === labels.length && matrix.every((r) => r.length === labels.length)
          ? { reference: refPair.a, other: refPair.b, labels, matrix }
          : undefined,
      perCategory: scores
        ? scores.categories.map((c) => ({
            code: String(c.label),
            precision: finite(c.precision) ?? null,
            recall: finite(c.recall) ?? null,
            f1: finite(c.f1) ?? null,
            support: c.support,
          }))
        : [],
      ...(scores ? { perCategoryPair: { coder: scores.coder, reference: scores.reference } } : {}),
      disagreements: report.disagreements.rows
        .filter((r) => r.variable === v.name)
        .map((r) => ({
          session: r.session,
          turn: r.turn,
          speaker: r.speaker ?? undefined,
          text: r.text ?? "(turn not found in the study's sessions)",
          codes: Object.fromEntries(Object.entries(r.values).map(([k, val]) => [k, String(val)])),
        })),
    };
  });
}

/** Every agreement file's sets; a file with nothing to draw is a warning. */
export function readAgreement(files: readonly AnalysisFile<AgreementReport>[], warnings: string[]): AgreementSet[] {
  const out: AgreementSet[] = [];
  for (const { file, value } of files) {
    try {
      out.push(...agreementFromReport(file, value));
    } catch (error) {
      warnings.push(`${agreementFiles.agreement.folder}/${file}: ${(error as Error).message}; ${rerun(agreementFiles.agreement)}`);
    }
  }
  return out;
}

/**
 * Every comparison's test of a measure, as the report words it: the view showed the first only
 * (one of seven with eight conditions), and its adjusted p labelled plain "p".
 */
function measureTests(comparison: MeasureComparison | undefined): MeasureTestLine[] {
  // With its note, as the report's line has it: "the same people took part in sessions of both conditions ..." qualifies p.
  return (comparison?.tests ?? []).map((t) => ({
    comparison: `${t.a} vs ${t.b}`,
    test: inPlainWords(t.testName),
    apa: `${apaConditionTest(t)}${t.note ? ` (${t.note})` : ""}`,
  }));
}

/** Per-condition summaries of one measure: mean, SD, n and the 95% CI of the mean, as the analysis computed them. */
function summaries(comparison: MeasureComparison | undefined): { condition: string; mean: number; sd?: number; ci?: [number, number]; n: number }[] {
  const out = [];
  for (const [condition, s] of Object.entries(comparison?.byCondition ?? {})) {
    if (s.mean === null) continue;
    // Files written before the analysis stored the interval get it from the same analysis function.
    const ci = s.ci95 !== undefined ? s.ci95 : meanInterval(s.mean, s.sd, s.n);
    out.push({ condition, mean: s.mean, sd: s.sd ?? undefined, ci: ci ?? undefined, n: s.n });
  }
  return out;
}

/**
 * `analysis/topics.json` (TopicsReport of `colloquy topics`): each tree's merged topics (main
 * topics with sub-topics), and the branching ratio (sub-topics / main topics) per condition from
 * the report's `branchingRatio` comparison: mean, SD, n, 95% CI and its first test.
 */
export function readTopics(file: AnalysisFile<TopicsReport> | null, warnings: string[]): TopicsSet | null {
  if (!file) return null;
  return topicsSet(file.value, file.value.trees.map(topicTree), warnings);
}

type TopicsEntry = TopicsReport["trees"][number];

/** One entry of topics.json's trees as the view draws it: the tree's merged topics under a root named after its session and participant. */
function topicTree(entry: TopicsEntry): TopicsSet["trees"][number] {
  const who = entry.participantName ?? entry.participant;
  const label = `${entry.session}${who ? ` · ${who}` : ""}`;
  const root: TopicNode = {
    id: entry.key,
    label,
    children: (entry.merged?.mainTopics ?? []).map((m) => ({
      id: `${entry.key}/${m.id}`,
      label: m.label,
      turns: m.turns.length,
      children: m.subtopics.map((sub) => ({ id: `${entry.key}/${m.id}/${sub.id}`, label: sub.label, turns: sub.turns.length, children: [] })),
    })),
  };
  return { scope: entry.scope, id: label, condition: entry.condition, root };
}

/** The view's set from the report's comparisons and its trees. */
function topicsSet(report: TopicsReport, trees: TopicsSet["trees"], warnings: string[]): TopicsSet | null {
  if (trees.length === 0) {
    warnings.push(`${topicsFiles.topics.relative()}: no topic trees; ${rerun(topicsFiles.topics)}`);
    return null;
  }
  const comparison = report.conditions.find((c) => c.measure === "branchingRatio");
  return { trees, branching: summaries(comparison), tests: measureTests(comparison) };
}

/** `analysis/concepts.json` (ConceptsReport): concept rate per condition and first mentions. */
export function readConcepts(file: AnalysisFile<ConceptsReport> | null, warnings: string[]): ConceptsSet | null {
  if (!file) return null;
  return conceptsSet(file.value, file.value.sessions.flatMap(firstMentions), warnings);
}

/** One session's first mentions with a time, as the view draws them. */
function firstMentions(s: ConceptsReport["sessions"][number]): ConceptsSet["firstMentions"] {
  return s.firstMentions.flatMap((m) => (m.start !== null ? [{ session: s.session, condition: s.condition, concept: m.concept, time: m.start }] : []));
}

/**
 * Why a concepts file has nothing to chart. Re-running does not help when the transcripts have no
 * turn times (rates are per minute, first mentions are placed in time); only a file with no
 * concept at all is worth re-making.
 */
function whyNoConcepts(report: ConceptsReport): string {
  if (report.sessions.some((s) => s.firstMentions.length > 0))
    return "the sessions have no turn times, so there are no rates per minute or times of first mentions";
  return `no concept in the turns it counted (speakers: ${JSON.stringify(report.provenance.speakers)}); ${rerun(conceptsFiles.concepts)}`;
}

function conceptsSet(report: ConceptsReport, mentions: ConceptsSet["firstMentions"], warnings: string[]): ConceptsSet | null {
  const rate = report.conditions.find((c) => c.measure === "sessionConceptRate") ?? report.conditions.find((c) => c.measure === "conceptRate");
  const rates = summaries(rate).map(({ condition, mean, sd, n }) => ({ condition, mean, sd, n }));
  if (rates.length === 0 && mentions.length === 0) {
    warnings.push(`${conceptsFiles.concepts.relative()}: no concept rates or first mentions to chart: ${whyNoConcepts(report)}`);
    return null;
  }
  return { rates, firstMentions: mentions, tests: measureTests(rate) };
}

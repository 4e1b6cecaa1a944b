import type { AgreementReport } from "../../analysis/agreement/agree.js";
import type { SpeakerSelection } from "../../analysis/concepts/speakers.js";
import { codesBy, inPlainWords, plainLabel } from "../glossary.js";
import type { CompareReport } from "../../analysis/compare/compare.js";
import type { MeasureComparison } from "../../analysis/concepts/conditions.js";
import { DEFAULT_INFERENCE, describeDesign, resolveDesign } from "../../analysis/shared/design.js";
import { chooseTest } from "../../analysis/inference/decision.js";
import { cannotReach } from "../../analysis/inference/two-groups.js";
import { EFFECT_SIZE_NAMES, MIN_EFFECT_INTERVAL_N } from "../../analysis/inference/effect-sizes.js";
import { ADJUSTMENT_NAMES } from "../../analysis/inference/multiplicity.js";
import { adjustmentText } from "../../analysis/compare/tests.js";
import type { AnalysisFile, StudyData } from "../load.js";
import { apaCompareTest, apaConditionTest, apaNumber, apaSummary, conditionTestName } from "../apa.js";
import type { Block, Cell, Chart, PaperReport, Section, Table } from "./document.js";
import { CONDITION_COLOURS, coloursByName } from "../palette.js";
import { conditionOf, conditionsOf } from "../shape/common.js";
import { codeSetValidation, validationLabel } from "../shape/validation.js";
import { codeValuesDigest, summariseRecords } from "../../coding/records.js";
import { statsFiles } from "../../analysis/stats/descriptor.js";

/**
 * The paper report's sections, in the order of a paper's method and results: sample, design,
 * coding, reliability, comparisons, topics, concepts. Every number is copied from an analysis
 * file (named in each table's `source`); nothing is computed here except counting the sample.
 */

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
const table = (t: Table): Block => ({ kind: "table", table: t });
const para = (text: string): Block => ({ kind: "paragraph", text });
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * Whose turns topics and concepts counted: by default only the human speakers' (docs/analysis.md),
 * so "words per turn" is not the team's unless the report says whose it is.
 */
function speakersPhrase(speakers: SpeakerSelection | undefined): string {
  if (speakers === undefined || speakers === "all") return "";
  if (speakers === "human") return ", counting the turns of human speakers only";
  return `, counting the turns of ${speakers.join(", ")} only`;
}

/** Build the report of a loaded study. `version` and `date` go in the byline. */
export function buildPaper(data: StudyData, meta: { version: string; date: string }): PaperReport {
  const a = data.analysis;
  const compares = [...a.compare.values()];
  // The dashboard's condition colours: the same study-wide list (control first), the same palette.
  const colour = coloursByName(conditionsOf(data.sessions.map(conditionOf), data.config.compare.control), CONDITION_COLOURS);
  const sections: Section[] = [
    { title: "Method", level: 2, blocks: [] },
    sampleSection(data),
    designSection(data, compares),
    codingSection(data, compares),
    { title: "Results", level: 2, blocks: [] },
    reliabilitySection(a.agreement),
    ...compares.map((c) => compareSection(c, data, colour)),
    ...(a.topics
      ? [
          measuresSection(
            "Topics",
            a.topics.file,
            a.topics.value.conditions.filter((c) => c.measure === "branchingRatio" || c.measure === "mainTopics" || c.measure === "subtopics"),
            `branching ratio (sub-topics per main topic)${speakersPhrase(a.topics.value.provenance.speakers)}`,
            colour,
          ),
        ]
      : []),
    ...(a.concepts
      ? [
          measuresSection(
            "Concepts",
            a.concepts.file,
            a.concepts.value.conditions,
            `concepts per minute and lexical measures${speakersPhrase(a.concepts.value.provenance.speakers)}`,
            colour,
          ),
        ]
      : []),
  ];
  const missing = [
    ...(a.agreement.length === 0 ? ["reliability (run `colloquy agree <study>` with human coders)"] : []),
    ...(compares.length === 0 ? ["code comparisons (run `colloquy compare <study>`)"] : []),
    ...(a.topics ? [] : ["topics (run `colloquy topics <study>`)"]),
    ...(a.concepts ? [] : ["concepts (run `colloquy concepts <study>`)"]),
    ...(a.stats ? [] : ["session statistics (run `colloquy stats <study>`)"]),
  ];
  if (missing.length > 0 || data.warnings.length > 0) {
    sections.push({
      title: "Not in this report",
      level: 2,
      blocks: [{ kind: "notes", items: [...missing.map((m) => `No analysis file for ${m}.`), ...data.warnings] }],
    });
  }
  return {
    title: data.config.title ?? `Study ${data.name}`,
    byline: `Colloquy ${meta.version}, ${meta.date}; study folder ${data.name}. Every number is copied from the analysis files named under each table.`,
    sections: sections.filter((s) => s.level === 2 || s.blocks.length > 0),
  };
}

function sampleSection(data: StudyData): Section {
  const conditions = [...new Set(data.sessions.map((s) => s.metadata.condition ?? "(no condition)"))].sort();
  const stats = data.analysis.stats?.value;
  const rows: Cell[][] = conditions.map((c) => {
    const sessions = data.sessions.filter((s) => (s.metadata.condition ?? "(no condition)") === c);
    const people = new Set(sessions.flatMap((s) => s.participants.filter((p) => p.kind !== "system").map((p) => p.name)));
    const runs = new Set(sessions.map((s) => s.metadata.run ?? s.id));
    const metrics = stats?.sessions.filter((m) => m.condition === c) ?? [];
    return [
      c,
      sessions.length,
      runs.size,
      people.size,
      stats ? metrics.reduce((n, m) => n + m.turns, 0) : null,
      stats ? metrics.reduce((n, m) => n + m.words, 0) : null,
    ];
  });
  const everyone = new Set(data.sessions.flatMap((s) => s.participants.filter((p) => p.kind !== "system").map((p) => `${p.kind}\u0000${p.name}`)));
  const kinds = new Map<string, number>();
  for (const k of everyone) kinds.set(k.split("\u0000")[0], (kinds.get(k.split("\u0000")[0]) ?? 0) + 1);
  const turns = stats ? stats.sessions.reduce((n, m) => n + m.turns, 0) : null;
  const text =
    `The study holds ${plural(data.sessions.length, "session")} in ${plural(conditions.length, "condition")} (${conditions.join(", ")}), ` +
    `with ${plural(everyone.size, "distinct participant")} (${[...kinds].map(([k, n]) => `${n} ${k}`).join(", ")})` +
    (turns !== null
      ? ` and ${plural(turns, "counted turn")} (${stats!.definitions.countedTurns !== undefined ? inPlainWords(stats!.definitions.countedTurns) : `see ${statsFiles.stats.relative()}`}).`
      : "; run `colloquy stats` for turn counts.");
  return {
    title: "Sample",
    level: 3,
    blocks: [
      para(text),
      table({
        id: "sample",
        caption: "Sessions, runs, participants, turns and words per condition",
        columns: ["condition", "sessions", "runs", "participants", "turns", "words"],
        rows,
        digits: [undefined, 0, 0, 0, 0, 0],
        source: `sessions/ (sessions, runs, participants); ${statsFiles.stats.relative()} sessions[].turns, .words`,
      }),
    ],
  };
}

function designSection(data: StudyData, compares: AnalysisFile<CompareReport>[]): Section {
  const recorded = compares.map((c) => c.value.design).find((d) => d !== undefined);
  const resolved = recorded ?? studyDesignOf(data);
  const design = { ...resolved, description: describeDesign(resolved) };
  const control = data.config.compare.control;
  const test = chooseTest(design.design, compares[0]?.value.options.test ?? data.config.compare.test);
  const adjust = compares[0]?.value.options.adjust ?? data.config.compare.adjust ?? "holm";
  const measures = [data.analysis.topics, data.analysis.concepts].flatMap((f) => (f ? f.value.conditions.map((c) => ({ file: f.file, c })) : []));
  const blocks: Block[] = [
    para(
      `Design: ${design.description}; ${design.reason}. ${unitsAndN(data, design, compares, measures)} ` +
        `Every question (a code or measure, one condition against another) has one test chosen in advance from the decision table: the ${test.name}, with ${EFFECT_SIZE_NAMES[test.effect]} and, from ${MIN_EFFECT_INTERVAL_N} ${design.unit}s ${design.design === "within" ? "paired" : "a side"}, its 95% bootstrap interval over ${design.unit}s. ` +
        `The tests of one analysis in one comparison (the codes of one codebook; the measures of topics; those of concepts) are one family, ${adjust === "none" ? "not adjusted for multiplicity" : `adjusted with the ${ADJUSTMENT_NAMES[adjust]} procedure; the text reports adjusted p`}. ` +
        "Counts of acts per condition and their percentage differences from control are descriptive: acts are nested in sessions and speakers." +
        (control
          ? ` Each condition is compared with the control condition, ${control}; every difference and effect size is the condition minus the control.`
          : " No control condition is set (compare.control in colloquy.json), so every pair of conditions is compared; every difference and effect size is the later condition (in alphabetical order) minus the earlier."),
    ),
  ];
  // Session-level measures are analysed per session whatever the design: only the others must match it.
  const others = measures.filter((o) => o.c.level === "participant").slice(0, 1);
  const disagree = others.filter((o) => o.c.design !== design.design || o.c.unit !== design.unit);
  if (disagree.length > 0) {
    blocks.push({
      kind: "notes",
      items: disagree.map(
        (o) =>
          `analysis/${o.file} was computed with the ${o.c.design} design, unit ${o.c.unit}; re-run it (\`colloquy study\`) so every analysis uses the study's design.`,
      ),
    });
  }
  return { title: "Design", level: 3, blocks };
}

/**
 * The units and their n, once for the whole report: the code comparisons' (from the compare
 * file, else the sessions per condition), and the sessions of the measures taken once per
 * session when the unit is the participant.
 */
function unitsAndN(
  data: StudyData,
  design: { design: string; unit: string },
  compares: AnalysisFile<CompareReport>[],
  measures: { c: MeasureComparison }[],
): string {
  const sessionsPer = new Map<string, number>();
  for (const s of data.sessions) sessionsPer.set(s.metadata.condition ?? "(none)", (sessionsPer.get(s.metadata.condition ?? "(none)") ?? 0) + 1);
  const perCondition = [...sessionsPer].map(([c, n]) => `${c} ${n}`).join(", ");
  const comparisons = compares[0]?.value.comparisons ?? [];
  const sizes = [
    ...new Set(
      comparisons.map((c) => (c.design === "within" ? `${c.nCondition} paired ${design.unit}s` : `${c.nCondition} vs ${c.nReference} ${design.unit}s`)),
    ),
  ];
  const units =
    sizes.length > 0
      ? `Unit of analysis: ${design.unit}; n per comparison: ${sizes.join("; ")}.`
      : `Unit of analysis: ${design.unit}${design.unit === "session" ? `; sessions per condition: ${perCondition}` : ""}.`;
  const sessionLevel = [...new Set(measures.filter((m) => m.c.level === "session").map((m) => m.c.measure))];
  return design.unit === "participant" && sessionLevel.length > 0
    ? `${units} Measures taken once per session (${sessionLevel.map(plainLabel).join(", ")}) are analysed per session (sessions per condition: ${perCondition}): a session is one observation, never counted once per person.`
    : units;
}

/** The study's design when no compare file recorded one (a study without codes). */
function studyDesignOf(data: StudyData) {
  const c = data.config.compare;
  try {
    return resolveDesign(data.sessions, { config: { design: c.design, unit: c.unit, agentUnits: c.agentUnits } });
  } catch {
    return { ...DEFAULT_INFERENCE.design, reason: "colloquy.json declares a design the sessions cannot support (run colloquy compare for the message)" };
  }
}

function codingSection(data: StudyData, compares: AnalysisFile<CompareReport>[]): Section {
  const rows: Cell[][] = [];
  const setOf = (codebook: string, coder: string) => data.codeSets.find((s) => s.codebook === codebook && s.coder === coder);
  const digestOf = (codebook: string, coder: string) => {
    const set = setOf(codebook, coder);
    return set && codeValuesDigest(set.records);
  };
  const validation = (codebook: string, coder: string) => {
    const set = setOf(codebook, coder);
    return set && codeSetValidation(set.coder, summariseRecords(set.records), (human) => digestOf(codebook, human));
  };
  for (const set of data.codeSets) {
    const versions = [...new Set(set.records.map((r) => r.codebookVersion))].sort();
    rows.push([
      set.codebook,
      versions.join(", ") || null,
      set.coder,
      set.coder.startsWith("human:") ? "human" : set.coder === "rules" ? "offline rules" : "machine",
      set.records.length,
      validationLabel(validation(set.codebook, set.coder)!),
    ]);
  }
  // The comparisons' results are only as good as their codes: a coder not validated (or under the
  // floor) is said where the comparisons are named, not only in the table below.
  // So are turns the coder left without a code (people who coded a part, an LLM's failures): the
  // comparisons count only the coded ones, which a reader takes for all unless told.
  const caveat = (c: CompareReport) => {
    const v = validation(c.codebook.id, c.coder);
    const said = [
      ...(v && (v.status === "below-floor" || v.status === "unvalidated" || v.outOfDate) ? [validationLabel(v)] : []),
      ...(c.acts.uncodedTurns > 0 ? [`${plural(c.acts.uncodedTurns, "turn")} without a code from this coder left out`] : []),
    ];
    return said.length ? `: ${said.join("; ")}` : "";
  };
  const blocks: Block[] = [
    para(
      `Turns were coded with ${plural(new Set(data.codeSets.map((s) => s.codebook)).size, "codebook")} by ${plural(new Set(data.codeSets.map((s) => s.coder)).size, "coder")}.` +
        (compares.length
          ? ` Comparisons use ${compares.map((c) => `${codesBy(c.value.coder, c.value.codebook.id)} (version ${c.value.codebook.version})${caveat(c.value)}`).join("; ")}.`
          : ""),
    ),
    table({
      id: "coders",
      caption: "Codebooks and coders (records = coded turns)",
      columns: ["codebook", "version", "coder", "kind", "records", "checked against people"],
      rows,
      digits: [undefined, undefined, undefined, undefined, 0, undefined],
      source: "codes/<codebook>/<coder>.jsonl",
    }),
  ];
  const provenance = data.analysis.files.map((f) =>
    `analysis/${f.file}: ${String((f.provenance as { command?: string }).command ?? "")} ${f.provenance.createdAt ?? ""}, Colloquy ${f.provenance.version ?? "?"}`.replace(
      /\s+/g,
      " ",
    ),
  );
  if (provenance.length) blocks.push({ kind: "notes", items: provenance });
  return { title: "Coding", level: 3, blocks };
}

function reliabilitySection(files: AnalysisFile<AgreementReport>[]): Section {
  const blocks: Block[] = [];
  for (const f of files) {
    const r = f.value;
    for (const v of r.variables) {
      const id = slug(`reliability-${f.params[0]}-${v.name}`);
      const pairs = v.pairs.map((p) => [p.a, p.b, p.n, p.agreement, p.kappa, p.kappaCI?.lower ?? null, p.kappaCI?.upper ?? null, p.ac1] as Cell[]);
      const alpha = v.alpha[0];
      const sentences = v.pairs.map(
        (p) =>
          `${p.a} and ${p.b} agreed on ${apaNumber(p.agreement * 100, 1)}% of ${p.n} turns, Cohen's κ = ${apaNumber(p.kappa, 2, true)}${p.kappaCI ? `, 95% CI [${apaNumber(p.kappaCI.lower, 2, true)}, ${apaNumber(p.kappaCI.upper, 2, true)}]` : ""}`,
      );
      blocks.push(
        para(
          `Reliability of ${f.params[0]}${r.variables.length > 1 ? ` (${v.name})` : ""} on ${plural(v.units, "turn")} coded by ${v.coders.join(", ")}: ${sentences.join("; ")}.` +
            (alpha
              ? ` Krippendorff's α (${alpha.level}) = ${apaNumber(alpha.alpha, 2, true)}${alpha.ci ? `, 95% CI [${apaNumber(alpha.ci.lower, 2, true)}, ${apaNumber(alpha.ci.upper, 2, true)}]` : ""}.`
              : "") +
            ` Intervals: percentile bootstrap over turns (${r.settings.bootstrap} resamples, seed ${r.settings.seed}).`,
        ),
        table({
          id: `${id}-pairs`,
          caption: `Pairwise agreement, ${f.params[0]}${r.variables.length > 1 ? ` ${v.name}` : ""}`,
          columns: ["coder A", "coder B", "turns", "agreement", "kappa", "kappa CI lower", "kappa CI upper", "Gwet AC1"],
          rows: pairs,
          digits: [undefined, undefined, 0, 3, 3, 3, 3, 3],
          source: `analysis/${f.file} variables[${v.name}].pairs`,
        }),
        {
          kind: "chart",
          chart: {
            kind: "intervals",
            id: `${id}-kappa`,
            caption: `Cohen's kappa with 95% CI, ${f.params[0]}`,
            rows: v.pairs.map((p) => ({ label: `${p.a} vs ${p.b}`, value: p.kappa, lower: p.kappaCI?.lower ?? null, upper: p.kappaCI?.upper ?? null })),
            valueLabel: "κ",
            domain: [0, 1],
          },
        },
      );
      const pair = v.pairs.find((p) => p.a === v.reference || p.b === v.reference) ?? v.pairs[0];
      if (pair) {
        const labels = v.labels.map(String);
        blocks.push(
          table({
            id: `${id}-confusion`,
            caption: `Confusion matrix: ${pair.a} (rows) × ${pair.b} (columns)`,
            columns: [`${pair.a} \\ ${pair.b}`, ...labels],
            rows: pair.confusion.map((row, i) => [labels[i], ...row]),
            digits: [undefined, ...labels.map(() => 0)],
            source: `analysis/${f.file} variables[${v.name}].pairs[${pair.a} vs ${pair.b}].confusion`,
          }),
        );
      }
    }
    if (r.warnings.length) blocks.push({ kind: "notes", items: r.warnings });
  }
  return { title: "Reliability", level: 3, blocks };
}

function compareSection(f: AnalysisFile<CompareReport>, data: StudyData, colour: (condition: string) => string): Section {
  const r = f.value;
  const cb = f.params[0];
  const book = data.codebooks.get(r.codebook.id);
  const labelOf = (code: string) => (book && "categories" in book ? (book.categories.find((c) => c.id === code)?.label ?? code) : code);
  const blocks: Block[] = [];
  blocks.push(
    para(
      `${r.acts.counted} acts (${codesBy(r.coder, cb)}) were compared across ${plural(r.conditions.length, "condition")}: ${r.conditions.map((c) => `${c.name} (${plural(c.sessions, "session")} in ${plural(c.runs, "run")}, ${c.acts} acts)`).join(", ")}.`,
    ),
  );
  const chis = r.tests.filter((t) => t.family === "chi-square");
  for (const t of chis) {
    blocks.push(
      para(
        `Descriptively, the distribution of acts over codes across ${t.across}: ${apaCompareTest(t)} (acts are not independent observations, so this is not a test of the ${t.across}).`,
      ),
    );
  }
  const cond = r.frequencies.byCondition;
  blocks.push(
    table({
      id: `codes-${cb}-proportions`,
      caption: `Share of acts per code and condition (${cb}, ${r.coder})`,
      columns: ["code", ...cond.map((c) => c.key)],
      rows: r.labels.map((code) => [labelOf(code), ...cond.map((c) => c.proportions[code])]),
      digits: [undefined, ...cond.map(() => 3)],
      source: `analysis/${f.file} frequencies.byCondition[].proportions`,
    }),
  );
  blocks.push({
    kind: "chart",
    chart: {
      kind: "bars",
      id: `codes-${cb}-proportions`,
      caption: `Share of acts per code and condition (${cb})`,
      categories: r.labels.map(labelOf),
      series: cond.map((c) => ({ name: c.key, values: r.labels.map((code) => c.proportions[code]), colour: colour(c.key) })),
      valueLabel: "share",
    },
  });
  if (r.differences.rows.length > 0) {
    blocks.push(
      table({
        id: `codes-${cb}-differences`,
        caption: `Difference from control (${r.differences.control}), counts${r.differences.basis === "per-run" ? " per run" : ""} (descriptive)`,
        columns: ["condition", "code", "count", "control count", "% difference", "share difference (points)"],
        rows: r.differences.rows.map((d) => [d.condition, labelOf(d.code), d.count, d.controlCount, d.percentDifference, d.proportionPointDifference]),
        digits: [undefined, undefined, 0, 0, 1, 1],
        source: `analysis/${f.file} differences.rows`,
      }),
    );
  }
  const pairwise = r.tests.filter((t) => t.family !== "chi-square" && !(t.note ?? "").startsWith("no acts with this code"));
  const tested = pairwise.filter((t) => t.p !== null);
  const reachable = tested.filter((t) => !cannotReach(t));
  const decisive = (t: CompareReport["tests"][number]) => (r.options.adjust === "none" ? t.p : (t.pAdjusted ?? null));
  const significant = reachable.filter((t) => (decisive(t) ?? 1) < 0.05);
  const unit = r.design?.unit ?? r.options.unit;
  const sizes = [
    ...new Set(r.comparisons.map((c) => (c.design === "within" ? `${c.nCondition} paired ${unit}s` : `${c.nCondition} vs ${c.nReference} ${unit}s`))),
  ];
  const tooSmall = tested.filter((t) => cannotReach(t));
  blocks.push(
    para(
      `Unit of analysis: ${unit} (${sizes.join("; ")} per comparison); one ${r.options.test} test per comparison and code (${tested.length} tests); ${adjustmentText(r.options.adjust)}. ` +
        (tooSmall.length > 0
          ? `${tooSmall.length === tested.length ? "No" : `${tooSmall.length} of the`} tests can reach p < .05 at ${tooSmall.length === tested.length ? "these sizes" : "their sizes"}: with ${sizes.join("; ")} the smallest two-sided p is ${Math.min(
              ...tooSmall.map((t) => t.smallestP!),
            )
              .toFixed(2)
              .replace(/^0\./, ".")}, so their p values and effect sizes are descriptive. `
          : "") +
        (reachable.length === 0
          ? ""
          : significant.length === 0
            ? `No code differed significantly between conditions (${reachable.length} tests, α = .05, ${adjustmentText(r.options.adjust)}).`
            : `Codes that differed (α = .05, ${adjustmentText(r.options.adjust)}): ` +
              significant.map((t) => `${labelOf(t.code!)}, ${direction(t)} in ${t.condition} than in ${t.reference} (${apaCompareTest(t)})`).join("; ") +
              "."),
    ),
  );
  const adjusted = r.options.adjust !== "none";
  blocks.push(
    table({
      id: `codes-${cb}-tests`,
      caption: `Tests per code (${describeDesign(r.design ?? r.options)}, n per comparison: ${sizes.join("; ")}; measure ${r.options.measure})`,
      columns: ["code", "comparison", "test", "n", "statistic", "p", ...(adjusted ? [`p (${r.options.adjust})`] : []), "effect size", "effect", "APA", "note"],
      rows: [...pairwise, ...chis].map((t) => [
        t.code ? labelOf(t.code) : `(${t.across}, descriptive)`,
        t.condition !== undefined ? `${t.condition} vs ${t.reference}` : `across ${t.across}`,
        t.test,
        t.n,
        t.statistic,
        t.p,
        ...(adjusted ? [t.pAdjusted ?? null] : []),
        t.effectSizeName ?? null,
        t.effectSize ?? null,
        apaCompareTest(t),
        t.note ?? "",
      ]),
      digits: [undefined, undefined, undefined, 0, 3, 4, ...(adjusted ? [4] : []), undefined, 3],
      source: `analysis/${f.file} tests`,
    }),
  );
  const untested = r.tests.filter((t) => (t.note ?? "").startsWith("no acts with this code"));
  const notes = [...r.notes, ...untestedNotes(untested, r.tests, labelOf)];
  if (notes.length) blocks.push({ kind: "notes", items: notes });
  return { title: `Code frequencies by condition (${cb})`, level: 3, blocks };
}

/**
 * The codes not tested for want of acts. A code untested in only some comparisons names them: a
 * code tested where it occurs (asks-opinion in asks_opinion vs control, and in no other condition)
 * must not read as never tested.
 */
function untestedNotes(untested: CompareReport["tests"], tests: CompareReport["tests"], labelOf: (code: string) => string): string[] {
  if (untested.length === 0) return [];
  const name = (t: CompareReport["tests"][number]) => `${t.condition} vs ${t.reference}`;
  const comparisons = new Set(tests.filter((t) => t.family !== "chi-square" && t.condition !== undefined).map(name));
  const where = new Map<string, string[]>();
  for (const t of untested) where.set(t.code!, [...(where.get(t.code!) ?? []), name(t)]);
  const everywhere = [...where].filter(([, list]) => new Set(list).size === comparisons.size).map(([code]) => labelOf(code));
  const some = [...where]
    .filter(([, list]) => new Set(list).size < comparisons.size)
    .map(([code, list]) => `${labelOf(code)} (${[...new Set(list)].join(", ")})`);
  return [
    ...(everywhere.length ? [`Not tested (no acts in either condition of any comparison): ${everywhere.join(", ")}.`] : []),
    ...(some.length ? [`Not tested in some comparisons (no acts in either condition of those comparisons; tested in the others): ${some.join("; ")}.`] : []),
  ];
}

/** "more" or "fewer": the sign of the test's mean difference (condition minus reference). */
function direction(t: CompareReport["tests"][number]): string {
  const diff = (t.details as { meanDifference?: number | null } | undefined)?.meanDifference;
  return diff === undefined || diff === null ? "different" : diff > 0 ? "more" : diff < 0 ? "fewer" : "the same on average";
}

/**
 * The n per condition of a group of measures: one list when every measure has it, else one per
 * set of measures that share it (a concept rate has no value for a session whose times span under
 * a minute, while the counts of that session do), so no measure is given another's n.
 */
function nPerCondition(group: MeasureComparison[]): string {
  const listOf = (c: MeasureComparison) =>
    Object.entries(c.byCondition)
      .map(([condition, s]) => `${condition} ${s.n}`)
      .join(", ");
  const byList = new Map<string, string[]>();
  for (const c of group) byList.set(listOf(c), [...(byList.get(listOf(c)) ?? []), plainLabel(c.measure)]);
  if (byList.size === 1) return [...byList.keys()][0];
  return [...byList].map(([list, measures]) => `${measures.join(", ")}: ${list}`).join("; ");
}

/** Topics or concepts: per-measure summaries by condition and the tests, as reported by the analysis. */
function measuresSection(title: string, file: string, comparisons: MeasureComparison[], what: string, colour: (condition: string) => string): Section {
  const blocks: Block[] = [];
  if (comparisons.length === 0) return { title, level: 3, blocks };
  const first = comparisons[0];
  // One sentence per way of analysing (participant-level measures on the study's unit, session-level ones per session).
  const groups = new Map<string, MeasureComparison[]>();
  for (const c of comparisons) groups.set(`${c.level}/${c.unit}/${c.design}`, [...(groups.get(`${c.level}/${c.unit}/${c.design}`) ?? []), c]);
  const ways = [...groups.values()].map((group) => {
    const g = group[0];
    const which = groups.size > 1 ? `${group.map((c) => plainLabel(c.measure)).join(", ")}: m` : "M";
    return `${which}easured per ${g.level} and analysed per ${g.unit} (${describeDesign(g)}; ${g.designReason}; n per condition: ${nPerCondition(group)})`;
  });
  const test = comparisons.flatMap((c) => c.tests)[0];
  blocks.push(
    para(
      `${title}: ${what}. ${ways.join(". ")}. ${test ? `Each test is the ${[...new Set(comparisons.flatMap((c) => c.tests.map((t) => t.testName)))].join(" or ")}, ${test.adjust === "none" ? "unadjusted" : `${ADJUSTMENT_NAMES[test.adjust]}-adjusted across the ${title.toLowerCase()} measures within each comparison`}` : "No test ran"}. Means are given with 95% intervals (${Object.values(first.byCondition).find((s) => s.ciMethod)?.ciMethod ?? "see the analysis file"}).`,
    ),
  );
  const rows: Cell[][] = [];
  const testRows: Cell[][] = [];
  const charts: Chart[] = [];
  for (const c of comparisons) {
    const entries = Object.entries(c.byCondition);
    for (const [condition, s] of entries)
      rows.push([plainLabel(c.measure), condition, s.n, s.mean, s.sd, s.ci95?.[0] ?? null, s.ci95?.[1] ?? null, s.missing, s.ciNote ?? ""]);
    for (const t of c.tests)
      testRows.push([
        plainLabel(c.measure),
        `${t.a} vs ${t.b}`,
        conditionTestName(t),
        t.n,
        t.statistic,
        t.df ?? null,
        t.p,
        t.pAdjusted,
        t.effectSizeName ?? null,
        t.effectSize ?? null,
        apaConditionTest(t),
        [t.skipped, t.note].filter(Boolean).join("; "),
      ]);
    const sentences = entries.map(([condition, s]) => `${condition}: ${apaSummary(s, c.unit)}`);
    const tested = c.tests;
    blocks.push(
      para(
        `${plainLabel(c.measure)}: ${sentences.join("; ")}.${tested.length ? ` ${tested.map((t) => `${t.a} vs ${t.b}, ${conditionTestName(t)}: ${apaConditionTest(t)}${t.note ? ` (${t.note})` : ""}`).join("; ")}.` : ""}`,
      ),
    );
    if (c === first)
      charts.push({
        kind: "intervals",
        id: `${slug(title)}-${slug(c.measure)}`,
        caption: `${plainLabel(c.measure)} by condition: mean and 95% interval`,
        rows: entries.map(([condition, s]) => ({
          label: condition,
          value: s.mean,
          lower: s.ci95?.[0] ?? null,
          upper: s.ci95?.[1] ?? null,
          colour: colour(condition),
        })),
        valueLabel: plainLabel(c.measure),
      });
  }
  blocks.push(...charts.map((chart): Block => ({ kind: "chart", chart })));
  blocks.push(
    table({
      id: `${slug(title)}-by-condition`,
      caption: `${title}: summaries by condition`,
      columns: ["measure", "condition", "n", "mean", "SD", "95% CI lower", "95% CI upper", "missing", "note"],
      rows,
      digits: [undefined, undefined, 0, 3, 3, 3, 3, 0],
      source: `analysis/${file} conditions[].byCondition`,
    }),
  );
  blocks.push(
    table({
      id: `${slug(title)}-tests`,
      caption: `${title}: tests between conditions`,
      columns: ["measure", "comparison", "test", "n", "statistic", "df", "p", "p (adjusted)", "effect size", "effect", "APA", "note"],
      rows: testRows,
      digits: [undefined, undefined, undefined, 0, 3, 1, 4, 4, undefined, 3],
      source: `analysis/${file} conditions[].tests`,
    }),
  );
  return { title, level: 3, blocks };
}

import type { Provenance } from "../../util/provenance.js";
import { CliError } from "../../util/errors.js";
import { knownLabels, memberCounts, type CodedSession, type CodedTurns } from "../shared/table.js";
import { mapCodes, mapConditions } from "./mapping.js";
import { ownCodes, studyCodes } from "./session-parts.js";
import { runTests, type Comparison, type TestResult } from "./tests.js";
import { DEFAULT_INFERENCE, describeDesign, isPersonUnit, type InferenceSettings } from "../shared/design.js";
import { chooseTest, type TestId } from "../inference/decision.js";
import type { Adjustment } from "../inference/multiplicity.js";

/**
 * `colloquy compare`: code frequencies per condition, role and speaker; the percentage difference
 * of every code from a control condition; and tests between conditions. A pure function of the
 * coded turns and the options; the CLI only loads, writes and prints.
 */

/** Settings of a comparison (CLI flags over colloquy.json `compare` over these defaults). */
export interface CompareOptions {
  /** Condition (or condition group) every other condition is compared against. */
  control?: string;
  /** Merge codes: merged id -> codes it replaces. */
  collapse?: Record<string, string[]>;
  /** Codes left out of every count (input ids or merged ids). */
  drop?: string[];
  /** Merge conditions: group name -> study conditions. */
  conditionGroups?: Record<string, string[]>;
  /** Compare counts per run instead of raw counts in the differences table (default false). */
  normaliseByRuns?: boolean;
  /**
   * The study's design, test and adjustment (../shared/design.ts; stages take it from
   * colloquy.json). Default: sessions as independent units, the permutation test, Holm.
   * A participant unit is a person by participant id (agents only when the design says so); a
   * session unit is the session. System participants are never units.
   */
  inference?: InferenceSettings;
  /** Value per unit: acts with the code per session (default) or their share of the unit's acts. */
  measure?: "count" | "proportion";
  /** Where the settings came from, for error messages. */
  where?: { collapse: string; drop: string; groups: string; control: string };
}

/** The settings a comparison ran with, as its file records them. */
export interface ResolvedCompareOptions {
  control: string | null;
  collapse: Record<string, string[]>;
  drop: string[];
  conditionGroups: Record<string, string[]>;
  normaliseByRuns: boolean;
  design: "within" | "between";
  unit: "participant" | "session";
  /** Agents and simulated participants counted as participant units (declared only). */
  agentUnits: boolean;
  measure: "count" | "proportion";
  /** The decision table's test every row ran. */
  test: TestId;
  adjust: Adjustment;
  resamples: number;
  seed: number;
}

/** Code counts of one group of acts (a condition, role, speaker, or condition × role). */
export interface FrequencyRow {
  /** The condition, role or speaker name (condition × role rows: "condition / role"). */
  key: string;
  condition?: string;
  role?: string;
  /** Sessions and runs contributing acts or participants. */
  sessions: number;
  runs: number;
  /** Acts counted (after drop and collapse). */
  total: number;
  counts: Record<string, number>;
  /** count / total (0..1); null when total is 0. */
  proportions: Record<string, number | null>;
  /** count / runs. */
  perRun: Record<string, number>;
}

/** One code's change from the control condition. */
export interface Difference {
  condition: string;
  control: string;
  code: string;
  count: number;
  controlCount: number;
  runs: number;
  controlRuns: number;
  /** The values compared: counts, or counts per run with normaliseByRuns. */
  value: number;
  controlValue: number;
  /** (value - controlValue) / controlValue × 100; null when controlValue is 0 (see `note`). */
  percentDifference: number | null;
  /** proportion - controlProportion, in percentage points (share of each condition's acts). */
  proportionPointDifference: number | null;
  note?: string;
}

/** A unit's acts per code in one (output) condition, for transparency and re-analysis. */
export interface UnitRow {
  condition: string;
  /** Participant: name (or role) plus " | run <run>" when the session names its run; session: its run (or id). */
  unit: string;
  sessions: number;
  total: number;
  counts: Record<string, number>;
}

/** Everything compareConditions computes (the JSON file adds provenance and the codebook/coder). */
export interface CompareResult {
  /** Codes reported, after collapse and drop, in codebook order. */
  labels: string[];
  conditions: { name: string; members: string[]; sessions: number; runs: number; acts: number }[];
  acts: { counted: number; dropped: number; uncodedTurns: number; orphanRecords: number; unknownCodes: string[] };
  /** Resolved settings (defaults filled in). */
  options: ResolvedCompareOptions;
  /** The design the tests assumed, its unit, where it came from and why (absent from older files). */
  design?: { design: "within" | "between"; unit: "participant" | "session"; source: "flag" | "colloquy.json" | "default"; reason: string; description: string };
  frequencies: { byCondition: FrequencyRow[]; byRole: FrequencyRow[]; bySpeaker: FrequencyRow[]; byConditionRole: FrequencyRow[] };
  differences: { control: string | null; basis: "count" | "per-run"; rows: Difference[]; note: string };
  comparisons: Comparison[];
  tests: TestResult[];
  units: UnitRow[];
  notes: string[];
}

/** `analysis/compare-<codebook>.json`. */
export interface CompareReport extends CompareResult {
  provenance: Provenance;
  codebook: { id: string; version: string };
  coder: string;
}

interface Acc {
  counts: Float64Array;
  sessions: Set<string>;
  runs: Set<string>;
  /** The session last added: its members share accumulators, which need it once (a session's members are met together). */
  last?: CodedSession;
}

const ZERO_CONTROL_NOTE = "control count is 0, so the percentage difference is undefined (null); compare the counts";

/** What {@link compareFrequencies} computes: a comparison without its tests. */
export type CompareFrequencies = Omit<CompareResult, "comparisons" | "tests">;

/** Compare code frequencies across conditions. Throws CliError for unknown codes, conditions or control. */
export function compareConditions(data: CodedTurns, options: CompareOptions = {}): CompareResult {
  const f = compareFrequencies(data, options);
  const inference = options.inference ?? DEFAULT_INFERENCE;
  const { comparisons, tests } = runTests({
    labels: f.labels,
    conditions: f.conditions.map((c) => c.name),
    control: f.options.control,
    units: f.units,
    byCondition: f.frequencies.byCondition,
    byRole: f.frequencies.byRole,
    measure: f.options.measure,
    inference,
  });
  const d = inference.design;
  const design = { design: d.design, unit: d.unit, source: d.source, reason: d.reason, description: describeDesign(d) };
  if (d.design === "within") checkPairable(comparisons, design);
  return {
    labels: f.labels,
    conditions: f.conditions,
    acts: f.acts,
    options: f.options,
    frequencies: f.frequencies,
    differences: f.differences,
    comparisons,
    tests,
    units: f.units,
    notes: f.notes,
    design,
  };
}

/**
 * A within-subject design with nothing to pair is a mismatch between the declared design and
 * the data, not a set of untestable lines: stop and say which setting to change.
 */
function checkPairable(comparisons: readonly Comparison[], design: { source: string; reason: string }): void {
  const empty = comparisons.filter((c) => c.paired !== null && c.paired.length === 0);
  if (empty.length === 0) return;
  const c = empty[0];
  const unit = "person";
  const list = (xs: string[]) => (xs.length === 0 ? "no people" : xs.slice(0, 4).join(", ") + (xs.length > 4 ? `, … (${xs.length})` : ""));
  throw new CliError(
    `the design is within-subject (${design.reason}), but no ${unit} appears in both ${c.condition} and ${c.reference}, so nothing can be paired ` +
      `(${c.condition}: ${list(c.onlyInCondition)}; ${c.reference}: ${list(c.onlyInReference)}). ` +
      `If different people took part in each condition, set "design": "between" under "compare" in colloquy.json (or run \`colloquy compare\` with --design between); ` +
      "if the same people took part under different ids, give them the same participant id in their sessions; " +
      'AI agents and simulated participants are paired only with "agentUnits": true under "compare".',
  );
}

/**
 * What one session contributes to {@link compareFrequencies}: the acts of each of its members per
 * code, from which every frequency table and unit row is summed. Counted before collapse and drop
 * and in the session's own numbering of codes (session-parts.ts ownCodes), so that a part holds
 * under any code mapping and whatever codes outside the codebook other sessions bring.
 */
export interface CompareSessionPart {
  /** counts[member * W + code]: members in CodedSession.members order, W = the codebook's labels and then `unknown`. */
  counts: Float64Array;
  /** The session's codes outside the codebook (OwnCodes.unknown). */
  unknown: string[];
}

/** One session's {@link CompareSessionPart}; `labels` are the join's, the first `known` of them the codebook's. */
export function compareSessionPart(cs: CodedSession, labels: readonly string[], known: number): CompareSessionPart {
  const own = ownCodes(cs, labels, known);
  return { counts: memberCounts(own.session, cs.members.length, known + own.unknown.length), unknown: own.unknown };
}

/**
 * The options as compareFrequencies counts under them, after the checks it makes first: codes
 * the collapse or drop names that the codebook lacks, conditions or a control the study lacks, or
 * no sessions, throw a CliError naming the setting.
 */
function resolveCompare(data: CodedTurns, options: CompareOptions) {
  const where = options.where ?? { collapse: "compare.collapse", drop: "compare.drop", groups: "compare.conditionGroups", control: "compare.control" };
  const inference = options.inference ?? DEFAULT_INFERENCE;
  const resolved: ResolvedCompareOptions = {
    control: options.control ?? null,
    collapse: options.collapse ?? {},
    drop: options.drop ?? [],
    conditionGroups: options.conditionGroups ?? {},
    normaliseByRuns: options.normaliseByRuns ?? false,
    design: inference.design.design,
    unit: inference.design.unit,
    agentUnits: inference.design.agentUnits,
    measure: options.measure ?? "count",
    test: chooseTest(inference.design.design, inference.test).test,
    adjust: inference.adjust,
    resamples: inference.resamples,
    seed: inference.seed,
  };
  const codes = mapCodes(data.labels, resolved.collapse, resolved.drop, where);
  const known = knownLabels(data);
  const present = [...new Set(data.sessions.map((s) => s.condition))].sort((a, b) => a.localeCompare(b));
  if (present.length === 0) throw new CliError("the study has no sessions to compare; add some with `colloquy import` or `colloquy run`");
  const conds = mapConditions(present, resolved.conditionGroups, options.control, where);
  return { resolved, codes, known, conds };
}

/** Throw as compareFrequencies would for these data and options, without counting (the dashboard, before it takes `colloquy compare`'s numbers). */
export function checkCompareOptions(data: CodedTurns, options: CompareOptions = {}): void {
  resolveCompare(data, options);
}

/**
 * The counting half of {@link compareConditions}: frequencies, differences from the control and
 * the per-unit rows, without the tests (the dashboard shows these for every coder; the tests come
 * from the `colloquy compare` file). Same errors as compareConditions.
 */
export function compareFrequencies(
  data: CodedTurns,
  options: CompareOptions = {},
  part: (cs: CodedSession, compute: () => CompareSessionPart) => CompareSessionPart = (_cs, compute) => compute(),
  /**
   * "conditions": only what the conditions' rows and the differences need (the dashboard's view):
   * the role, speaker and condition × role rows and the unit rows are left empty, not counted.
   */
  scope: "all" | "conditions" = "all",
): CompareFrequencies {
  const all = scope === "all";
  const { resolved, codes, known, conds } = resolveCompare(data, options);
  const L = codes.labels.length;
  const acc = (): Acc => ({ counts: new Float64Array(L), sessions: new Set<string>(), runs: new Set<string>(), last: undefined });
  const get = (m: Map<string, Acc>, key: string) => {
    let a = m.get(key);
    if (!a) m.set(key, (a = acc()));
    return a;
  };
  const byCondition = new Map<string, Acc>(conds.conditions.map((c) => [c, acc()]));
  const byRole = new Map<string, Acc>();
  const bySpeaker = new Map<string, Acc>();
  const byConditionRole = new Map<string, Acc>();
  const units = new Map<string, { condition: string; order: number; unit: string; counts: Float64Array; sessions: Set<string> }>();
  let counted = 0;
  let dropped = 0;

  for (const cs of data.sessions) {
    const condition = conds.of.get(cs.condition)!;
    // Runs are counted per study condition, so a group of two conditions with 3 runs each has 6.
    const runKey = `${cs.condition}\u0000${cs.run}`;
    const memberAccs = cs.members.map((p) => {
      const role = p.role ?? p.kind;
      const list = all
        ? [get(byCondition, condition), get(byRole, role), get(bySpeaker, p.name), get(byConditionRole, `${condition}\u0000${role}`)]
        : [get(byCondition, condition)];
      for (const a of list) {
        if (a.last === cs) continue;
        a.last = cs;
        a.sessions.add(cs.session.id);
        a.runs.add(runKey);
      }
      return list;
    });
    // The unit of analysis: the session, or a person by participant id (agents only when declared).
    const unitOf = cs.members.map((p) => {
      if (!all) return null;
      if (resolved.unit === "session") return cs.session.id;
      return isPersonUnit(p.kind, resolved.agentUnits) ? p.id : null;
    });
    const unitCounts = unitOf.map((u) => {
      if (u === null) return null;
      const key = `${condition}\u0000${u}`;
      let row = units.get(key);
      if (!row) units.set(key, (row = { condition, order: conds.conditions.indexOf(condition), unit: u, counts: new Float64Array(L), sessions: new Set() }));
      row.sessions.add(cs.session.id);
      return row.counts;
    });
    const own = part(cs, () => compareSessionPart(cs, data.labels, known));
    // The part's own codes -> the study's labels -> the reported codes (-1: dropped).
    const W = known + own.unknown.length;
    const study = studyCodes(own.unknown, data.labels, known);
    const reported = Int32Array.from({ length: W }, (_, c) => codes.map[study ? study[c] : c]);
    cs.members.forEach((_, s) => {
      const list = memberAccs[s];
      const unit = unitCounts[s];
      for (let c = 0; c < W; c++) {
        const n = own.counts[s * W + c];
        if (n === 0) continue;
        const m = reported[c];
        if (m < 0) {
          dropped += n;
          continue;
        }
        counted += n;
        for (const a of list) a.counts[m] += n;
        if (unit) unit[m] += n;
      }
    });
  }

  const row = (key: string, a: Acc, extra: { condition?: string; role?: string } = {}): FrequencyRow => {
    const total = a.counts.reduce((x, y) => x + y, 0);
    const runs = a.runs.size;
    const out: FrequencyRow = { key, ...extra, sessions: a.sessions.size, runs, total, counts: {}, proportions: {}, perRun: {} };
    codes.labels.forEach((label, i) => {
      out.counts[label] = a.counts[i];
      out.proportions[label] = total > 0 ? a.counts[i] / total : null;
      out.perRun[label] = runs > 0 ? a.counts[i] / runs : 0;
    });
    return out;
  };
  const sorted = (m: Map<string, Acc>) => [...m].sort(([a], [b]) => a.localeCompare(b));
  const frequencies = {
    byCondition: conds.conditions.map((c) => row(c, byCondition.get(c)!, { condition: c })),
    byRole: sorted(byRole).map(([k, a]) => row(k, a, { role: k })),
    bySpeaker: sorted(bySpeaker).map(([k, a]) => row(k, a)),
    byConditionRole: [...byConditionRole]
      .sort(([a], [b]) => {
        const [ca, ra] = a.split("\u0000");
        const [cb, rb] = b.split("\u0000");
        return conds.conditions.indexOf(ca) - conds.conditions.indexOf(cb) || ra.localeCompare(rb);
      })
      .map(([k, a]) => {
        const [condition, role] = k.split("\u0000");
        return row(`${condition} / ${role}`, a, { condition, role });
      }),
  };

  const basis = resolved.normaliseByRuns ? "per-run" : "count";
  const differences = differencesFrom(frequencies.byCondition, codes.labels, resolved.control, basis);
  const unitRows: UnitRow[] = [...units.values()]
    .sort((a, b) => a.order - b.order || a.unit.localeCompare(b.unit))
    .map((u) => {
      const counts: Record<string, number> = {};
      codes.labels.forEach((label, i) => (counts[label] = u.counts[i]));
      return { condition: u.condition, unit: u.unit, sessions: u.sessions.size, total: u.counts.reduce((x, y) => x + y, 0), counts };
    });

  const notes: string[] = [];
  if (data.unknownLabels.length > 0) notes.push(`codes not in the codebook were counted as found: ${data.unknownLabels.join(", ")}`);
  if (data.orphanRecords > 0)
    notes.push(
      `${data.orphanRecords} code records name a session or turn the study does not have and were not counted (e.g. ${data.orphanExamples.join(", ")})`,
    );
  if (resolved.control === null)
    notes.push("no control condition (set compare.control or --control): no differences table; tests compare every pair of conditions");
  return {
    labels: codes.labels,
    conditions: conds.conditions.map((name) => {
      const a = byCondition.get(name)!;
      return { name, members: conds.members.get(name)!, sessions: a.sessions.size, runs: a.runs.size, acts: a.counts.reduce((x, y) => x + y, 0) };
    }),
    acts: { counted, dropped, uncodedTurns: data.uncodedTurns, orphanRecords: data.orphanRecords, unknownCodes: data.unknownLabels },
    options: resolved,
    frequencies,
    differences,
    units: unitRows,
    notes,
  };
}

/**
 * Percentage difference of each code from the control, as team-collaboration studies report it:
 * (value - controlValue) / controlValue × 100, where value is the condition's count (or count per
 * run). 7 acts against 1 in control is +600%. A control value of 0 gives null with a note, never Infinity.
 */
export function differencesFrom(
  rows: readonly FrequencyRow[],
  labels: readonly string[],
  control: string | null,
  basis: "count" | "per-run",
): CompareResult["differences"] {
  const note =
    `percentDifference = (value - controlValue) / controlValue × 100 with value = ${basis === "count" ? "the count of acts" : "acts per run"}; ` +
    "null when the control value is 0. proportionPointDifference = difference of the shares of each condition's acts, in percentage points.";
  if (control === null) return { control: null, basis, rows: [], note };
  const ref = rows.find((r) => r.key === control)!;
  const out: Difference[] = [];
  for (const r of rows) {
    if (r.key === control) continue;
    for (const code of labels) {
      const value = basis === "count" ? r.counts[code] : r.perRun[code];
      const controlValue = basis === "count" ? ref.counts[code] : ref.perRun[code];
      const p = r.proportions[code];
      const q = ref.proportions[code];
      out.push({
        condition: r.key,
        control,
        code,
        count: r.counts[code],
        controlCount: ref.counts[code],
        runs: r.runs,
        controlRuns: ref.runs,
        value,
        controlValue,
        percentDifference: controlValue > 0 ? ((value - controlValue) / controlValue) * 100 : null,
        proportionPointDifference: p !== null && q !== null ? (p - q) * 100 : null,
        ...(controlValue > 0 ? {} : { note: ZERO_CONTROL_NOTE }),
      });
    }
  }
  return { control, basis, rows: out, note };
}

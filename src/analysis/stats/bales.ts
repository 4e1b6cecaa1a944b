import type { NominalCodebook } from "../../coding/codebook/schema.js";
import type { Participant } from "../../transcript/schema.js";
import { speakerName } from "./participation.js";
import { memberCounts, UNCODED, type CodedSession, type CodedTurns } from "../shared/table.js";
import { thirdOf } from "../shared/measures.js";
import { poolCounts } from "./pool.js";

/**
 * Interaction Process Analysis (Bales 1950) over coded turns, written for any nominal codebook:
 * profiles use the codebook's categories and groups; the classic ratios and phase movement need the
 * bales-ipa ids and groups and are omitted (with a note) when a codebook lacks them.
 *
 * Acts: every code on a turn is one act (Bales coding gives one per turn). The fallback category
 * (bales-ipa's `none`: nothing fits) is not an interaction act: it is counted in `fallback` and
 * left out of every percentage and phase denominator. Transitions use each coded turn's first code.
 */

/** Counts and percentages of acts for one member, role, condition or the whole study. */
export interface InteractionProfile {
  /** Acts (codes other than the fallback). */
  acts: number;
  /** Turns coded with the fallback category (not acts; not in any percentage). */
  fallback: number;
  /** Count per code id (every code of the codebook, including the fallback). */
  counts: Record<string, number>;
  /** Percent (0-100) of `acts` per category (fallback excluded); null when acts = 0. */
  percent: Record<string, number | null>;
  /** Per codebook group (bales-ipa: areas and problems): count and percent of acts. */
  groups: Record<string, { count: number; percent: number | null }>;
  /** Classic ratios (see {@link BALES_RATIOS}); absent when the codebook lacks their categories. */
  ratios: Record<string, Ratio>;
}

/** numerator / denominator, null (with both counts kept) when the denominator is 0. */
export interface Ratio {
  numerator: number;
  denominator: number;
  value: number | null;
}

/**
 * The ratios reported, by bales-ipa category ids (numerator ids / denominator ids):
 *  - positiveToNegative: socio-emotional positive (1-3) / negative (10-12) reactions;
 *  - questionsToAttemptedAnswers: questions (7-9) / attempted answers (4-6);
 *  - agreementToDisagreement: agrees (3) / disagrees (10);
 *  - taskToSocioEmotional: task area (4-9) / socio-emotional area (1-3, 10-12);
 *  - tensionReleaseToTension: shows tension release (2) / shows tension (11);
 *  - solidarityToAntagonism: shows solidarity (1) / shows antagonism (12).
 */
export const BALES_RATIOS: Record<string, { numerator: string[]; denominator: string[] }> = {
  positiveToNegative: { numerator: ["shows-solidarity", "shows-tension-release", "agrees"], denominator: ["disagrees", "shows-tension", "shows-antagonism"] },
  questionsToAttemptedAnswers: {
    numerator: ["asks-orientation", "asks-opinion", "asks-suggestion"],
    denominator: ["gives-suggestion", "gives-opinion", "gives-orientation"],
  },
  agreementToDisagreement: { numerator: ["agrees"], denominator: ["disagrees"] },
  taskToSocioEmotional: {
    numerator: ["gives-suggestion", "gives-opinion", "gives-orientation", "asks-orientation", "asks-opinion", "asks-suggestion"],
    denominator: ["shows-solidarity", "shows-tension-release", "agrees", "disagrees", "shows-tension", "shows-antagonism"],
  },
  tensionReleaseToTension: { numerator: ["shows-tension-release"], denominator: ["shows-tension"] },
  solidarityToAntagonism: { numerator: ["shows-solidarity"], denominator: ["shows-antagonism"] },
};

/** The codebook facts the profile builders need, precomputed once. */
export interface ProfileFrame {
  labels: string[];
  fallback: number;
  /** Group id -> label indices of its categories. */
  groups: Map<string, number[]>;
  /** Ratio name -> label indices, only for ratios whose ids all exist in the labels. */
  ratios: Map<string, { numerator: number[]; denominator: number[] }>;
}

export function profileFrame(labels: readonly string[], codebook?: NominalCodebook): ProfileFrame {
  const index = new Map(labels.map((l, i) => [l, i]));
  const groups = new Map<string, number[]>();
  for (const g of codebook?.groups ?? []) groups.set(g.id, []);
  for (const c of codebook?.categories ?? []) {
    for (const g of c.groups ?? []) {
      const i = index.get(c.id);
      if (i !== undefined) groups.get(g)?.push(i);
    }
  }
  const ratios = new Map<string, { numerator: number[]; denominator: number[] }>();
  for (const [name, def] of Object.entries(BALES_RATIOS)) {
    const num = def.numerator.map((id) => index.get(id));
    const den = def.denominator.map((id) => index.get(id));
    if ([...num, ...den].every((i) => i !== undefined)) ratios.set(name, { numerator: num as number[], denominator: den as number[] });
  }
  const fallback = codebook?.fallback !== undefined ? (index.get(codebook.fallback) ?? -1) : -1;
  return { labels: [...labels], fallback, groups, ratios };
}

/** Build a profile from a count vector indexed like `frame.labels`. */
export function profileOf(counts: ArrayLike<number>, frame: ProfileFrame): InteractionProfile {
  const fallback = frame.fallback >= 0 ? counts[frame.fallback] : 0;
  let total = 0;
  for (let i = 0; i < frame.labels.length; i++) total += counts[i];
  const acts = total - fallback;
  const pct = (n: number) => (acts > 0 ? (100 * n) / acts : null);
  const out: InteractionProfile = { acts, fallback, counts: {}, percent: {}, groups: {}, ratios: {} };
  frame.labels.forEach((label, i) => {
    out.counts[label] = counts[i];
    if (i !== frame.fallback) out.percent[label] = pct(counts[i]);
  });
  const sum = (idx: number[]) => idx.reduce((a, i) => a + counts[i], 0);
  for (const [id, idx] of frame.groups) out.groups[id] = { count: sum(idx), percent: pct(sum(idx)) };
  for (const [name, def] of frame.ratios) {
    const numerator = sum(def.numerator);
    const denominator = sum(def.denominator);
    out.ratios[name] = { numerator, denominator, value: denominator > 0 ? numerator / denominator : null };
  }
  return out;
}

/** One member's profile in one session. */
export interface MemberProfile {
  session: string;
  condition: string;
  participant: string;
  name: string;
  role: string;
  profile: InteractionProfile;
}

/** Profiles at every level the dashboard and papers use. */
export interface BalesProfiles {
  members: MemberProfile[];
  /** Per condition × role (role, or kind when no role). */
  roles: { condition: string; role: string; profile: InteractionProfile }[];
  conditions: { condition: string; profile: InteractionProfile }[];
  overall: InteractionProfile;
}

/**
 * What one session contributes to {@link balesProfiles}: the profiles of its members, and every
 * member's counts by role (system members included) for the pooled profiles.
 */
export interface SessionProfiles {
  members: MemberProfile[];
  /** Per member of the session (CodedSession.members order): role and counts indexed like the labels. */
  counts: { role: string; counts: Float64Array }[];
}

/** One session's member profiles and counts (every code of each turn). */
export function sessionProfiles(cs: CodedSession, frame: ProfileFrame): SessionProfiles {
  const L = frame.labels.length;
  const perMember = cs.members.map(() => new Float64Array(L));
  const n = cs.speakers.length;
  for (let t = 0; t < n; t++) {
    const row = perMember[cs.speakers[t]];
    for (let k = cs.offsets[t]; k < cs.offsets[t + 1]; k++) row[cs.codes[k]]++;
  }
  return profilesOfMembers(cs, perMember, frame);
}

function profilesOfMembers(cs: CodedSession, perMember: Float64Array[], frame: ProfileFrame): SessionProfiles {
  const members: MemberProfile[] = [];
  const counts = cs.members.map((p, m) => {
    const role = p.role ?? p.kind;
    const own = perMember[m];
    if (!(p.kind === "system" && own.every((c) => c === 0)))
      members.push({ session: cs.session.id, condition: cs.condition, participant: p.id, name: p.name, role, profile: profileOf(own, frame) });
    return { role, counts: own };
  });
  return { members, counts };
}

/** The profiles pooled from the sessions' members: everything in {@link BalesProfiles} but the members' own. */
export type PooledProfiles = Omit<BalesProfiles, "members">;

/**
 * Pool sessions' member counts (`counts[i]`, SessionProfiles.counts of a session of
 * `conditions[i]`) by role, condition and the whole study.
 */
export function poolProfiles(conditions: readonly string[], counts: readonly SessionProfiles["counts"][], frame: ProfileFrame): PooledProfiles {
  const L = frame.labels.length;
  const roleCounts = new Map<string, { condition: string; role: string; counts: Float64Array }>();
  const conditionCounts = new Map<string, Float64Array>();
  const overall = new Float64Array(L);
  counts.forEach((members, s) => {
    const condition = conditions[s];
    let cond = conditionCounts.get(condition);
    if (!cond) conditionCounts.set(condition, (cond = new Float64Array(L)));
    for (const { role, counts } of members) {
      const key = `${condition}\u0000${role}`;
      let r = roleCounts.get(key);
      if (!r) roleCounts.set(key, (r = { condition, role, counts: new Float64Array(L) }));
      for (let i = 0; i < L; i++) {
        r.counts[i] += counts[i];
        cond[i] += counts[i];
        overall[i] += counts[i];
      }
    }
  });
  return {
    roles: [...roleCounts.values()]
      .sort((a, b) => a.condition.localeCompare(b.condition) || a.role.localeCompare(b.role))
      .map((r) => ({ condition: r.condition, role: r.role, profile: profileOf(r.counts, frame) })),
    conditions: [...conditionCounts].sort(([a], [b]) => a.localeCompare(b)).map(([condition, counts]) => ({ condition, profile: profileOf(counts, frame) })),
    overall: profileOf(overall, frame),
  };
}

/** Interaction profiles of every member, role, condition and the whole study (counts all codes of each turn). */
export function balesProfiles(data: CodedTurns, frame: ProfileFrame): BalesProfiles {
  const parts = data.sessions.map((cs) => sessionProfiles(cs, frame));
  return {
    members: parts.flatMap((p) => p.members),
    ...poolProfiles(
      data.sessions.map((cs) => cs.condition),
      parts.map((p) => p.counts),
      frame,
    ),
  };
}

/** One speaker's profile pooled over every session they took part in. */
export interface SpeakerProfile {
  /** {@link speakerName}: the participant's name (id when unnamed), the same speaker in every session. */
  name: string;
  kind: Participant["kind"];
  /** Sessions in which this speaker has at least one code. */
  sessions: number;
  profile: InteractionProfile;
}

/**
 * Interaction profiles per speaker, pooled over sessions by name (counts all codes of each turn,
 * as {@link balesProfiles}). Speakers without any code are left out; order of first appearance.
 */
export function profilesBySpeaker(
  data: CodedTurns,
  frame: ProfileFrame,
  /** Each session's {@link memberCounts}, when kept (the build's session parts); else counted now. */
  counts: readonly Float64Array[] = data.sessions.map((cs) => memberCounts(cs, cs.members.length, frame.labels.length)),
): SpeakerProfile[] {
  const L = frame.labels.length;
  const pooled = new Map<string, { kind: Participant["kind"]; sessions: number; counts: Float64Array }>();
  data.sessions.forEach((cs, s) => {
    const perMember = counts[s];
    cs.members.forEach((p, m) => {
      // A member is coded when any code was counted for them: a row of counts that is not all 0.
      let coded = false;
      for (let i = 0; i < L && !coded; i++) coded = perMember[m * L + i] !== 0;
      if (!coded) return;
      const name = speakerName(p);
      let entry = pooled.get(name);
      if (!entry) pooled.set(name, (entry = { kind: p.kind, sessions: 0, counts: new Float64Array(L) }));
      entry.sessions++;
      for (let i = 0; i < L; i++) entry.counts[i] += perMember[m * L + i];
    });
  });
  return [...pooled].map(([name, e]) => ({ name, kind: e.kind, sessions: e.sessions, profile: profileOf(e.counts, frame) }));
}

/** Codes of a session's coded turns in order (first code per turn), as label indices. */
export function actSequence(primary: Int32Array, skip = -1): Int32Array {
  let n = 0;
  for (let t = 0; t < primary.length; t++) if (primary[t] !== UNCODED && primary[t] !== skip) n++;
  const out = new Int32Array(n);
  let k = 0;
  for (let t = 0; t < primary.length; t++) if (primary[t] !== UNCODED && primary[t] !== skip) out[k++] = primary[t];
  return out;
}

// Which third a position falls in is defined once, in measures.ts (phases and segments alike).
export { thirdOf } from "../shared/measures.js";

/** Group shares in one third of a session. */
export interface PhaseThird {
  /** Acts in this third (fallback excluded). */
  acts: number;
  /** Acts per group. */
  counts: Record<string, number>;
  /** Acts per category (every label but the fallback), so a reader can regroup them. */
  categories: Record<string, number>;
  /** count / acts per group; null when the third has no acts. */
  shares: Record<string, number | null>;
}

/** Phase movement (Bales & Strodtbeck 1951): group shares in the early, middle and late third of acts. */
export interface PhaseMovement {
  /** Groups reported (bales-ipa: orientation, evaluation, control first, then the other groups). */
  groups: string[];
  sessions: { session: string; condition: string; thirds: PhaseThird[] }[];
  /** Counts pooled over the sessions of each condition, and over the whole study. */
  conditions: { condition: string; thirds: PhaseThird[] }[];
  overall: PhaseThird[];
}

const PHASE_FIRST = ["orientation", "evaluation", "control"];

/**
 * Split each session's acts (fallback excluded) into thirds by position (act k of n is in third
 * floor(3k/n)) and give each group's share of the acts in each third.
 */
export function phaseMovement(data: CodedTurns, frame: ProfileFrame): PhaseMovement {
  const parts = data.sessions.map((cs) => sessionPhases(cs, frame));
  const pooled = poolPhases(
    data.sessions.map((cs) => cs.condition),
    parts.map((p) => p.counts),
    frame,
  );
  return { groups: pooled.groups, sessions: parts.map((p) => p.session), conditions: pooled.conditions, overall: pooled.overall };
}

/** What one session contributes to {@link phaseMovement}: its thirds, and their counts to pool. */
export interface SessionPhases {
  session: { session: string; condition: string; thirds: PhaseThird[] };
  /** Per third: acts, then the acts of each group (phaseLayout order), then of each label. */
  counts: Float64Array;
}

/** Groups reported by phase movement, in order (orientation, evaluation, control, then the rest), and each label's groups (indices into them). */
interface PhaseLayout {
  groups: readonly string[];
  groupOf: readonly (readonly number[])[];
}

/** Worked out once per frame, not once per session (a frame is never changed once profileFrame made it). */
const phaseLayouts = new WeakMap<ProfileFrame, PhaseLayout>();

function phaseLayout(frame: ProfileFrame): PhaseLayout {
  let layout = phaseLayouts.get(frame);
  if (!layout) {
    const groups = [...frame.groups.keys()].sort((a, b) => rank(a) - rank(b));
    const groupOf: number[][] = frame.labels.map(() => []);
    groups.forEach((g, gi) => frame.groups.get(g)!.forEach((i) => groupOf[i].push(gi)));
    phaseLayouts.set(frame, (layout = { groups, groupOf }));
  }
  return layout;
}

function renderThirds(counts: Float64Array, groups: readonly string[], frame: ProfileFrame): PhaseThird[] {
  const G = groups.length;
  const width = 1 + G + frame.labels.length;
  return [0, 1, 2].map((j) => {
    const at = j * width;
    const acts = counts[at];
    const byGroup: Record<string, number> = {};
    const shares: Record<string, number | null> = {};
    groups.forEach((g, gi) => {
      byGroup[g] = counts[at + 1 + gi];
      shares[g] = acts > 0 ? counts[at + 1 + gi] / acts : null;
    });
    const categories: Record<string, number> = {};
    frame.labels.forEach((label, i) => {
      if (i !== frame.fallback) categories[label] = counts[at + 1 + G + i];
    });
    return { acts, counts: byGroup, categories, shares };
  });
}

/** One session's acts (fallback excluded) split into thirds by position, counted per group and category. */
export function sessionPhases(cs: CodedSession, frame: ProfileFrame): SessionPhases {
  const { groups } = phaseLayout(frame);
  const counts = phaseCounts(cs, frame);
  return { session: { session: cs.session.id, condition: cs.condition, thirds: renderThirds(counts, groups, frame) }, counts };
}

/**
 * The study's acts by third, pooled over its sessions: {@link phaseMovement}'s `overall`, without
 * rendering each session's thirds (the dashboard's Bales view draws only this).
 */
export function phaseOverall(
  data: CodedTurns,
  frame: ProfileFrame,
  /** Each session's {@link phaseCounts}, when kept (the build's session parts); else counted now. */
  counts: readonly Float64Array[] = data.sessions.map((cs) => phaseCounts(cs, frame)),
): PhaseThird[] {
  const { groups } = phaseLayout(frame);
  const { overall } = poolCounts(
    data.sessions.map((cs) => cs.condition),
    counts,
    3 * (1 + groups.length + frame.labels.length),
  );
  return renderThirds(overall, groups, frame);
}

/** Per third of a session: its acts, then the acts of each group (phaseLayout order), then of each label. */
export function phaseCounts(cs: Pick<CodedSession, "primary">, frame: ProfileFrame): Float64Array {
  const { groups, groupOf } = phaseLayout(frame);
  const G = groups.length;
  const width = 1 + G + frame.labels.length;
  const counts = new Float64Array(3 * width);
  const acts = actSequence(cs.primary, frame.fallback);
  for (let k = 0; k < acts.length; k++) {
    const at = thirdOf(k, acts.length) * width;
    counts[at]++;
    counts[at + 1 + G + acts[k]]++;
    for (const g of groupOf[acts[k]]) counts[at + 1 + g]++;
  }
  return counts;
}

/** Phase movement pooled from the sessions' thirds: everything in {@link PhaseMovement} but the sessions' own. */
export type PooledPhases = Omit<PhaseMovement, "sessions">;

/** Pool sessions' thirds (`counts[i]`, SessionPhases.counts of a session of `conditions[i]`) per condition and over the study. */
export function poolPhases(conditions: readonly string[], counts: readonly Float64Array[], frame: ProfileFrame): PooledPhases {
  const { groups } = phaseLayout(frame);
  const size = 3 * (1 + groups.length + frame.labels.length);
  const { byCondition, overall } = poolCounts(conditions, counts, size);
  return {
    groups: [...groups],
    conditions: byCondition.map(([condition, acc]) => ({ condition, thirds: renderThirds(acc, groups, frame) })),
    overall: renderThirds(overall, groups, frame),
  };
}

function rank(group: string): number {
  const i = PHASE_FIRST.indexOf(group);
  return i >= 0 ? i : PHASE_FIRST.length;
}

/** Act-to-act transitions: counts[from][to] over consecutive coded turns of a session (uncoded turns skipped). */
export interface TransitionMatrix {
  labels: string[];
  counts: number[][];
  /** Row proportions (each row sums to 1); a row with no transitions is all null. */
  proportions: (number | null)[][];
  transitions: number;
}

/** Transition matrices pooled over the whole study and per condition. Includes the fallback code. */
export function transitions(data: CodedTurns): { overall: TransitionMatrix; conditions: { condition: string; matrix: TransitionMatrix }[] } {
  return combineTransitions(
    data.sessions.map((cs) => cs.condition),
    data.sessions.map((cs) => sessionTransitions(cs, data.labels.length)),
    data.labels,
  );
}

/** One session's transitions between consecutive coded turns' first codes: counts[from * L + to]. */
export function sessionTransitions(cs: CodedSession, L: number): Float64Array {
  const m = new Float64Array(L * L);
  let prev = UNCODED;
  for (let t = 0; t < cs.primary.length; t++) {
    const code = cs.primary[t];
    if (code === UNCODED) continue;
    if (prev !== UNCODED) m[prev * L + code]++;
    prev = code;
  }
  return m;
}

/** Pool sessions' transitions (parts[i] of a session of `conditions[i]`) per condition and over the study. */
export function combineTransitions(
  conditions: readonly string[],
  parts: readonly Float64Array[],
  labels: readonly string[],
): { overall: TransitionMatrix; conditions: { condition: string; matrix: TransitionMatrix }[] } {
  const { byCondition, overall } = poolCounts(conditions, parts, labels.length * labels.length);
  return {
    overall: matrixOf(overall, labels),
    conditions: byCondition.map(([condition, flat]) => ({ condition, matrix: matrixOf(flat, labels) })),
  };
}

function matrixOf(flat: Float64Array, labels: readonly string[]): TransitionMatrix {
  const L = labels.length;
  const counts: number[][] = [];
  const proportions: (number | null)[][] = [];
  let total = 0;
  for (let i = 0; i < L; i++) {
    const row = Array.from(flat.subarray(i * L, (i + 1) * L));
    const sum = row.reduce((a, b) => a + b, 0);
    total += sum;
    counts.push(row);
    proportions.push(row.map((c) => (sum > 0 ? c / sum : null)));
  }
  return { labels: [...labels], counts, proportions, transitions: total };
}

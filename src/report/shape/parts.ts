import type { Session } from "../../transcript/schema.js";
import { sha256 } from "../../util/hash.js";
import { sessionMetrics } from "../../analysis/stats/metrics.js";
import { speakerPooling, type SpeakerPooling } from "../../analysis/stats/participation.js";
import { codedSessionPart, joinParts, type CodedSessionPart } from "../../analysis/compare/session-parts.js";
import { memberCounts, type CodedTurns } from "../../analysis/shared/table.js";
import { phaseCounts, type ProfileFrame } from "../../analysis/stats/bales.js";
import { sessionCodes, type CodeSet } from "../load.js";
import type { CodebookInfo, Counts, Distribution, ParticipationSession, SessionSummary, SpeakerInfo } from "../types.js";
import { categoryIds, conditionOf, speakerKeys, turnSpeaker, turnWords } from "./common.js";
import { buildDistribution, buildSequenceSet, MAX_SEQUENCE_CELLS } from "./distributions.js";
import { buildParticipation } from "./participation.js";
import { addBadges, overviewPart, summariseSession, type OverviewPart, type SessionBadges } from "./overview.js";
import { addToCount, listEntry } from "../../util/named-entries.js";

/**
 * The study-level shapes as sums of per-session parts (issue 11: the build of a study with one
 * session more reshapes that session only). Each part depends on one session (and that
 * session's code records) alone, so the build memoises it per session (src/report/build.ts);
 * the merges below put the parts together in session order into exactly what the whole-study
 * shapers (collectSpeakers, overviewOf, buildDistribution, buildStyleSet, ...) give: the same
 * numbers, and the same key and entry order (a merge adds keys in the order they first appear,
 * session after session, as the whole-study loops do).
 */

/** A speaker as one session touches it: kind and role of its first touch there, turns and words. */
interface SpeakerTouch {
  key: string;
  kind: SpeakerInfo["kind"];
  role?: string;
  turns: number;
  words: number;
}

/** What one session alone gives the bundle. */
export interface SessionPart {
  summary: SessionSummary;
  /** Speakers in the order the session first touches them (participants, then turns). */
  speakers: SpeakerTouch[];
  overview: OverviewPart;
  /** What the study pools of the session's metrics by speaker (follows, turns and words). */
  pooling: SpeakerPooling;
  /** The session's entry of the bundle's participation.sessions. */
  participation: ParticipationSession;
  /** Turns per sequence cell, and each cell's first turn's speaker as an index into `speakers` (typed: loaded as a view into the memo's bytes, not a list made anew). */
  sequence: { binSize: number; speakers: Int32Array };
}

export function sessionPart(session: Session): SessionPart {
  const keys = speakerKeys(session);
  const touches = new Map<string, SpeakerTouch>();
  const touch = (key: string, kind: SpeakerInfo["kind"], role?: string) => {
    let entry = touches.get(key);
    if (!entry) touches.set(key, (entry = { key, kind, role, turns: 0, words: 0 }));
    return entry;
  };
  for (const p of session.participants) touch(keys.get(p.id)!.key, p.kind, p.role);
  for (const turn of session.turns) {
    const k = keys.get(turn.speaker);
    const entry = touch(k?.key ?? turn.speaker, k?.kind ?? "human", k?.role);
    entry.turns++;
    entry.words += turnWords(turn);
  }
  const binSize = Math.max(1, Math.ceil(session.turns.length / MAX_SEQUENCE_CELLS));
  const order = new Map([...touches.keys()].map((key, i) => [key, i]));
  const cells: number[] = [];
  // Every turn's speaker was touched above, under the key turnSpeaker gives.
  for (let i = 0; i < session.turns.length; i += binSize) cells.push(order.get(turnSpeaker(session, keys, session.turns[i])) ?? -1);
  const metrics = sessionMetrics(session);
  return {
    summary: summariseSession(session),
    speakers: [...touches.values()],
    overview: overviewPart(session, keys),
    pooling: speakerPooling(metrics),
    participation: buildParticipation(session, metrics),
    sequence: { binSize, speakers: Int32Array.from(cells) },
  };
}

/** Every speaker of the study (as collectSpeakers orders them) from the sessions' parts. */
export function mergeSpeakers(parts: readonly SessionPart[]): SpeakerInfo[] {
  const byKey = new Map<string, SpeakerInfo & { order: number }>();
  for (const part of parts) {
    for (const t of part.speakers) {
      let info = byKey.get(t.key);
      if (!info) byKey.set(t.key, (info = { key: t.key, kind: t.kind, role: t.role, sessions: 0, turns: 0, words: 0, order: byKey.size }));
      info.sessions++;
      info.turns += t.turns;
      info.words += t.words;
    }
  }
  const rank = { human: 0, simulated: 1, ai: 2, system: 3 } as const;
  return [...byKey.values()].sort((a, b) => rank[a.kind] - rank[b.kind] || a.order - b.order).map(({ order: _order, ...info }) => info);
}

/**
 * Each scale's finite ratings in turn order. A session's are kept as typed arrays (in the memo, all
 * in one: PackedStyles): lists of numbers took 70 ms to load for a 100,000-turn study's
 * pragmatic-style codes, and the study's lists are put together by one copy each.
 */
type StyleValues = Map<string, Float64Array>;

/**
 * A coder's counts in one session (what buildDistribution gives for it) as a memo keeps them:
 * numbers only, in one typed array, naming codes, speakers' keys, kinds and roles and the
 * condition by their index in the session's `strings` (CodebookSessionPart), which its coders
 * share. Objects keyed by code ids cost a string lookup per key to load (30-40 ms of a build after
 * one session was added to a 100,000-turn study, for the Bales codebook's three coders, issue 11),
 * and each coder's own copies of the codes' and speakers' strings another ~90 objects per session.
 *
 * Layout: the speakers' count, then per speaker its key, kind, role (-1: none), total and pairs'
 * count, then its [code, count] pairs in the order of its counts' keys; then the conditions'
 * count, and per condition its name, total, pairs' count and pairs.
 */
type PackedDistribution = Int32Array;

/** The strings a session's part names by index, each kept once. */
class StringTable {
  readonly strings: string[] = [];
  private readonly index = new Map<string, number>();
  of(value: string): number {
    let i = this.index.get(value);
    if (i === undefined) this.index.set(value, (i = this.strings.push(value) - 1));
    return i;
  }
}

function packDistribution({ bySpeaker, byCondition }: Pick<Distribution, "bySpeaker" | "byCondition">, table: StringTable): PackedDistribution {
  const out: number[] = [];
  const counts = (c: Counts) => {
    const entries = Object.entries(c);
    out.push(entries.length);
    for (const [code, n] of entries) out.push(table.of(code), n);
  };
  out.push(bySpeaker.length);
  for (const s of bySpeaker) {
    out.push(table.of(s.key), table.of(s.kind), s.role === undefined ? -1 : table.of(s.role), s.total);
    counts(s.counts);
  }
  out.push(byCondition.length);
  for (const c of byCondition) {
    out.push(table.of(c.condition), c.total);
    counts(c.counts);
  }
  return Int32Array.from(out);
}

/** What one coder's records of one session give the views (nominal: counts, cells, the join; scales: ratings). */
export interface CoderPart {
  distribution?: PackedDistribution;
  /** The session's sequence cells: a code's index (-1 none), kept typed so the memo loads it as a view into its bytes, not a list made anew. */
  cells?: Int32Array;
  /** The session's part of the join of sessions and codes (with the codebook's categories as labels): the compare and Bales views join the parts. */
  coded?: CodedSessionPart;
  /** What the compare and Bales views pool, counted once per session; absent when the session's codes are numbered apart from the study's. */
  counts?: SessionCounts;
  styles?: PackedStyles;
}

/** A session's counts for the compare and Bales views. */
export interface SessionCounts {
  /** Each member's count of each of the codebook's categories (memberCounts): what compareFrequencies and profilesBySpeaker pool. */
  members: Float64Array;
  /** Its thirds' counts (phaseCounts) for a Bales-style codebook with groups, else null. */
  phases: Float64Array | null;
}

/**
 * The sessions' kept counts when they can stand for counting `data`'s turns: they are numbered by
 * the codebook's categories (and their thirds counted under its Bales frame), so they serve when
 * the join's labels are those categories and nothing else. In the build they always are (its
 * categories include every code its records hold); otherwise the views count the turns.
 */
export function usableCounts(counts: readonly SessionCounts[] | undefined, data: CodedTurns, info: CodebookInfo): readonly SessionCounts[] | undefined {
  return counts && data.unknownLabels.length === 0 && data.labels.length === info.categories.length ? counts : undefined;
}

/**
 * The session's counts from its part of the join (numbered by the codebook's `categories`), when
 * that is numbered as the study is: when it has no code outside them.
 */
function sessionCounts(session: Session, coded: CodedSessionPart, categories: number, balesFrame: ProfileFrame | null): SessionCounts | undefined {
  if (coded.unknownLabels.length > 0) return undefined;
  return {
    members: memberCounts(coded, session.participants.length + coded.undeclared.length, categories),
    phases: balesFrame && balesFrame.groups.size > 0 ? phaseCounts(coded, balesFrame) : null,
  };
}

/** A session's ratings per speaker and for its condition, as styleValues collects them. */
interface SessionStyles {
  bySpeaker: [key: string, kind: string, values: StyleValues][];
  condition: string;
  byCondition: StyleValues | null;
}

/**
 * SessionStyles as a memo keeps them: every list's values in one typed array, and each list's
 * scale (an index into `scales`) and length in another. One list per speaker and scale, each a
 * typed array of its own, cost a call into the deserializer's JavaScript each: ~50 ms of a build
 * after one session was added to a 100,000-turn study, for the pragmatic-style codebook.
 */
interface PackedStyles {
  condition: string;
  speakers: [key: string, kind: string][];
  scales: string[];
  /** Per speaker in order, then for the condition when it has ratings: its lists' count, then [scale, length] per list. */
  layout: Int32Array;
  values: Float64Array;
  byCondition: boolean;
}

function packStyles(styles: SessionStyles): PackedStyles {
  const scales: string[] = [];
  const layout: number[] = [];
  const values: number[] = [];
  const add = (lists: StyleValues) => {
    layout.push(lists.size);
    for (const [scale, list] of lists) {
      let i = scales.indexOf(scale);
      if (i < 0) i = scales.push(scale) - 1;
      layout.push(i, list.length);
      for (const v of list) values.push(v);
    }
  };
  for (const [, , lists] of styles.bySpeaker) add(lists);
  if (styles.byCondition) add(styles.byCondition);
  return {
    condition: styles.condition,
    speakers: styles.bySpeaker.map(([key, kind]) => [key, kind]),
    scales,
    layout: Int32Array.from(layout),
    values: Float64Array.from(values),
    byCondition: styles.byCondition !== null,
  };
}

/** The lists of packed styles, as views into its one array of values (nothing copied). */
function unpackStyles(packed: PackedStyles): SessionStyles {
  let at = 0;
  let from = 0;
  const next = (): StyleValues => {
    const lists: StyleValues = new Map();
    for (let n = packed.layout[at++]; n > 0; n--) {
      const scale = packed.scales[packed.layout[at++]];
      const length = packed.layout[at++];
      lists.set(scale, packed.values.subarray(from, from + length));
      from += length;
    }
    return lists;
  };
  const bySpeaker = packed.speakers.map(([key, kind]): SessionStyles["bySpeaker"][number] => [key, kind, next()]);
  return { bySpeaker, condition: packed.condition, byCondition: packed.byCondition ? next() : null };
}

/**
 * What one codebook's coders (in `sets` order) give of one session, as its memo keeps it: the
 * digest of its badges, not the badges. A chunk is written again only when a digest of its
 * badges changed (or its file is gone), so a build that added a session writes that session's
 * chunk only, with the badges {@link codebookSessionPart} made with its part; kept in the memo,
 * the badges were 35 MB of a 100,000-turn study's report-codebook memos read by every build.
 */
export interface CodebookSessionPart {
  coders: CoderPart[];
  /** The strings its coders' distributions name by index (PackedDistribution). */
  strings: string[];
  badgesDigest: string;
}

export function codebookSessionPart(
  session: Session,
  sets: readonly CodeSet[],
  info: CodebookInfo,
  binSize: number,
  /** The Bales view's frame (profileFrame of the codebook's categories), for a Bales-style codebook. */
  balesFrame: ProfileFrame | null,
): CodebookSessionPart & { badges: SessionBadges } {
  const table = new StringTable();
  const coders = sets.map((set): CoderPart => {
    if (info.kind !== "nominal") return { styles: packStyles(styleValues(session, set)) };
    const { bySpeaker, byCondition } = buildDistribution([session], set);
    const row = { id: session.id, condition: conditionOf(session), turns: session.turns.length, binSize, speakers: [] };
    const coded = codedSessionPart(session, [...sessionCodes(set, session.id).values()], categoryIds(info));
    return {
      distribution: packDistribution({ bySpeaker, byCondition }, table),
      cells: Int32Array.from(buildSequenceSet([session], [row], set, info).cells[0]),
      coded,
      counts: sessionCounts(session, coded, info.categories.length, balesFrame),
    };
  });
  const badges = sessionBadges(session, sets, info);
  return { coders, strings: table.strings, badges, badgesDigest: sha256(JSON.stringify(badges)) };
}

/** A session's badges of one codebook's code sets (in `sets` order), as its chunk merges them (mergeBadges). */
export function sessionBadges(session: Session, sets: readonly CodeSet[], info: CodebookInfo): SessionBadges {
  const badges: SessionBadges = {};
  const labels = new Map(info.categories.map((k) => [k.id, k.label]));
  for (const set of sets) addBadges(badges, session, set, labels);
  return badges;
}

/** A session's finite ratings per speaker and for its condition (as buildStyleSet collects them). */
function styleValues(session: Session, set: CodeSet): SessionStyles {
  const keys = speakerKeys(session);
  const records = sessionCodes(set, session.id);
  const bySpeaker = new Map<string, [string, string, Map<string, number[]>]>();
  let byCondition: Map<string, number[]> | null = null;
  for (const turn of session.turns) {
    const scores = records.get(turn.id)?.scores;
    if (!scores) continue;
    const key = turnSpeaker(session, keys, turn);
    let s = bySpeaker.get(key);
    if (!s) bySpeaker.set(key, (s = [key, keys.get(turn.speaker)?.kind ?? "human", new Map()]));
    byCondition ??= new Map();
    for (const [scale, v] of Object.entries(scores)) {
      if (!Number.isFinite(v)) continue;
      listOf(s[2], scale).push(v);
      listOf(byCondition, scale).push(v);
    }
  }
  return {
    bySpeaker: [...bySpeaker.values()].map(([key, kind, values]) => [key, kind, typed(values)]),
    condition: conditionOf(session),
    byCondition: byCondition && typed(byCondition),
  };
}

function listOf(map: Map<string, number[]>, scale: string): number[] {
  let list = map.get(scale);
  if (!list) map.set(scale, (list = []));
  return list;
}

const typed = (values: Map<string, number[]>): StyleValues => new Map([...values].map(([scale, list]) => [scale, Float64Array.from(list)]));

/** Scale -> the lists to join, in order. */
type StyleChunks = Map<string, Float64Array[]>;

function addChunks(into: StyleChunks, values: StyleValues): void {
  for (const [scale, list] of values) {
    const chunks = into.get(scale);
    if (chunks) chunks.push(list);
    else into.set(scale, [list]);
  }
}

/** Each scale's chunks joined into one list, in order. */
function joined(chunks: StyleChunks): Map<string, Float64Array> {
  return new Map(
    [...chunks].map(([scale, lists]) => {
      const out = new Float64Array(lists.reduce((n, l) => n + l.length, 0));
      let at = 0;
      for (const l of lists) {
        out.set(l, at);
        at += l.length;
      }
      return [scale, out];
    }),
  );
}

/** One coder's distribution over the study from its session parts (what buildDistribution gives): coder `k` of each codebook part. */
export function mergeDistribution(codebook: string, coder: string, parts: readonly CodebookSessionPart[], k: number): Distribution {
  const bySpeaker = new Map<string, Distribution["bySpeaker"][number]>();
  const byCondition = new Map<string, Distribution["byCondition"][number]>();
  for (const { coders, strings } of parts) {
    const d = coders[k].distribution;
    if (!d) continue;
    let at = 0;
    // Each [code, count] pair of an entry added to its counts, in the order they were kept.
    const addCounts = (into: Counts) => {
      for (let n = d[at++]; n > 0; n--) {
        const code = strings[d[at++]];
        addToCount(into, code, d[at++]);
      }
    };
    for (let n = d[at++]; n > 0; n--) {
      const key = strings[d[at++]];
      const kind = strings[d[at++]];
      const role = d[at++];
      const total = d[at++];
      let entry = bySpeaker.get(key);
      if (!entry) bySpeaker.set(key, (entry = { key, kind, role: role < 0 ? undefined : strings[role], total: 0, counts: {} }));
      entry.total += total;
      addCounts(entry.counts);
    }
    for (let n = d[at++]; n > 0; n--) {
      const condition = strings[d[at++]];
      const total = d[at++];
      let entry = byCondition.get(condition);
      if (!entry) byCondition.set(condition, (entry = { condition, total: 0, counts: {} }));
      entry.total += total;
      addCounts(entry.counts);
    }
  }
  return { codebook, coder, bySpeaker: [...bySpeaker.values()], byCondition: [...byCondition.values()] };
}

/** One coder's ratings over the study, per speaker (with its kind) and per condition, in session order. */
export function mergeStyleValues(parts: readonly CoderPart[]): {
  bySpeaker: Map<string, { kind: string; values: ReadonlyMap<string, ArrayLike<number>> }>;
  byCondition: Map<string, ReadonlyMap<string, ArrayLike<number>>>;
} {
  const bySpeaker = new Map<string, { kind: string; chunks: StyleChunks }>();
  const byCondition = new Map<string, StyleChunks>();
  for (const part of parts) {
    if (!part.styles) continue;
    const styles = unpackStyles(part.styles);
    for (const [key, kind, values] of styles.bySpeaker) {
      let entry = bySpeaker.get(key);
      if (!entry) bySpeaker.set(key, (entry = { kind, chunks: new Map() }));
      addChunks(entry.chunks, values);
    }
    if (styles.byCondition) {
      let entry = byCondition.get(styles.condition);
      if (!entry) byCondition.set(styles.condition, (entry = new Map()));
      addChunks(entry, styles.byCondition);
    }
  }
  return {
    bySpeaker: new Map([...bySpeaker].map(([key, { kind, chunks }]) => [key, { kind, values: joined(chunks) }])),
    byCondition: new Map([...byCondition].map(([condition, chunks]) => [condition, joined(chunks)])),
  };
}

/**
 * One coder's join of sessions and codes from its session parts (what codedTurns gives, but for
 * the records of sessions the study does not have, which these views do not count).
 */
export function mergeCoded(sessions: readonly Session[], parts: readonly CoderPart[], info: CodebookInfo): CodedTurns {
  return joinParts(
    sessions,
    parts.map((p) => p.coded!),
    categoryIds(info),
    [],
  );
}

/** A session's badges from each of its codebooks' (in code set order, as addBadges adds them set after set). */
export function mergeBadges(badges: readonly SessionBadges[]): SessionBadges {
  const into: SessionBadges = {};
  for (const one of badges) {
    for (const [turn, list] of Object.entries(one)) listEntry(into, turn).push(...list);
  }
  return into;
}

import type { Participant, Session } from "../../transcript/schema.js";
import type { CodeValue } from "../../coding/records.js";

/**
 * The join every analysis starts from: each session's turns with the codes one coder gave them.
 * Codes are interned to small integers (indices into `labels`) and stored in typed arrays, so a
 * million coded turns cost a few typed arrays per session instead of a million little objects.
 */

/** Marks a turn without a code in {@link CodedSession.primary}. */
export const UNCODED = -1;

/** Condition label used for sessions whose metadata has no condition. */
export const NO_CONDITION = "(no condition)";

/** One session joined with its codes. */
export interface CodedSession {
  session: Session;
  /** `metadata.condition`, or {@link NO_CONDITION}. */
  condition: string;
  /** `metadata.run`, or the session id when the source names no run (each session its own run). */
  run: string;
  /** Speakers: the session's participants, then any speaker id a turn uses that is not declared (kind "human"). */
  members: Participant[];
  /** Index into `members` of each turn's speaker. */
  speakers: Int32Array;
  /** First code of each turn (index into {@link CodedTurns.labels}), or {@link UNCODED}. */
  primary: Int32Array;
  /** All codes of turn i are `codes[offsets[i] .. offsets[i+1])` (several only for multi-code codebooks). */
  offsets: Int32Array;
  codes: Int32Array;
}

/** Result of {@link codedTurns}. */
export interface CodedTurns {
  /** Code ids: the codebook's order first, then codes found in records but not in the codebook. */
  labels: string[];
  /** Codes found in records that the given label list does not contain (reported, still counted). */
  unknownLabels: string[];
  sessions: CodedSession[];
  /** Turns with at least one code / without any. */
  codedTurns: number;
  uncodedTurns: number;
  /** Code records naming a session or turn the study does not have (not counted anywhere). */
  orphanRecords: number;
  /** Up to 10 examples of orphan records as "session/turn". */
  orphanExamples: string[];
}

/** How many of a join's labels are the codebook's: they come first, the codes outside it after them. */
export const knownLabels = (data: Pick<CodedTurns, "labels" | "unknownLabels">): number => data.labels.length - data.unknownLabels.length;

/**
 * A session's members (its participants, then speakers of turns it does not list, as humans, in
 * order of first turn) and each turn's index into them. The join's per-session parts
 * (compare/session-parts.ts) keep the indices and the unlisted speakers; membersOf puts the
 * members back together from them.
 */
function speakersOf(session: Session): { members: Participant[]; speakers: Int32Array } {
  const members = [...session.participants];
  const memberIndex = new Map<string, number>(members.map((p, i) => [p.id, i]));
  const speakers = new Int32Array(session.turns.length);
  session.turns.forEach((turn, i) => {
    let s = memberIndex.get(turn.speaker);
    if (s === undefined) {
      s = members.length;
      members.push(undeclaredMember(turn.speaker));
      memberIndex.set(turn.speaker, s);
    }
    speakers[i] = s;
  });
  return { members, speakers };
}

/** A speaker of a turn the session's participants do not list: taken as a human named by their id. */
const undeclaredMember = (id: string): Participant => ({ id, name: id, kind: "human" });

/** speakersOf's members from the speakers the participants do not list (`undeclared`, in order of first turn). */
export function membersOf(session: Session, undeclared: readonly string[]): Participant[] {
  return [...session.participants, ...undeclared.map(undeclaredMember)];
}

/** What the join reads of a code record. */
export type JoinedCode = Pick<CodeValue, "session" | "turn" | "codes">;

/**
 * Join sessions with code records of one codebook and one coder. `labels` fixes the code order
 * (the codebook's categories); codes outside it are appended and listed in `unknownLabels`.
 * A record for a turn that does not exist is counted in `orphanRecords`, never guessed onto another turn.
 */
export function codedTurns(sessions: readonly Session[], records: readonly JoinedCode[], labels: readonly string[] = []): CodedTurns {
  const labelList = [...labels];
  const labelIndex = new Map<string, number>(labelList.map((l, i) => [l, i]));
  const unknownLabels: string[] = [];
  const intern = (code: string): number => {
    let i = labelIndex.get(code);
    if (i === undefined) {
      i = labelList.length;
      labelList.push(code);
      labelIndex.set(code, i);
      unknownLabels.push(code);
    }
    return i;
  };

  // Group records by session first: one Map lookup per record, then one per-session turn index.
  const bySession = new Map<string, JoinedCode[]>();
  for (const record of records) {
    let list = bySession.get(record.session);
    if (!list) bySession.set(record.session, (list = []));
    list.push(record);
  }

  let orphanRecords = 0;
  const orphanExamples: string[] = [];
  const orphan = (r: JoinedCode) => {
    orphanRecords++;
    if (orphanExamples.length < 10) orphanExamples.push(`${r.session}/${r.turn}`);
  };
  let coded = 0;
  let uncoded = 0;
  const out: CodedSession[] = [];
  const sessionIds = new Set<string>();

  for (const session of sessions) {
    sessionIds.add(session.id);
    const n = session.turns.length;
    const { members, speakers } = speakersOf(session);
    const turnIndex = new Map<string, number>();
    for (let i = 0; i < n; i++) turnIndex.set(session.turns[i].id, i);
    // Per-turn code lists, then packed into CSR arrays.
    const perTurn: (string[] | undefined)[] = new Array(n);
    let total = 0;
    for (const record of bySession.get(session.id) ?? []) {
      const i = turnIndex.get(record.turn);
      if (i === undefined) {
        orphan(record);
        continue;
      }
      const list = record.codes ?? [];
      perTurn[i] = list;
      total += list.length;
    }
    const primary = new Int32Array(n).fill(UNCODED);
    const offsets = new Int32Array(n + 1);
    const codes = new Int32Array(total);
    let k = 0;
    for (let i = 0; i < n; i++) {
      offsets[i] = k;
      const list = perTurn[i];
      if (list && list.length > 0) {
        for (const code of list) codes[k++] = intern(code);
        primary[i] = codes[offsets[i]];
        coded++;
      } else uncoded++;
    }
    offsets[n] = k;
    out.push({
      session,
      condition: session.metadata.condition ?? NO_CONDITION,
      run: session.metadata.run ?? session.id,
      members,
      speakers,
      primary,
      offsets,
      codes,
    });
  }
  for (const [id, list] of bySession) if (!sessionIds.has(id)) list.forEach(orphan);
  return { labels: labelList, unknownLabels, sessions: out, codedTurns: coded, uncodedTurns: uncoded, orphanRecords, orphanExamples };
}

/** Mean, sample SD (n - 1, as simple-statistics' sampleStandardDeviation) and n of the finite values. */
export interface Summary {
  n: number;
  mean: number | null;
  /** Sample standard deviation (n - 1 denominator); null when n < 2. */
  sd: number | null;
  min: number | null;
  max: number | null;
}

export function summarise(values: readonly (number | null)[]): Summary {
  let n = 0;
  let sum = 0;
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) {
    if (v === null || !Number.isFinite(v)) continue;
    n++;
    sum += v;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  if (n === 0) return { n, mean: null, sd: null, min: null, max: null };
  const mean = sum / n;
  let ss = 0;
  for (const v of values) if (v !== null && Number.isFinite(v)) ss += (v - mean) ** 2;
  return { n, mean, sd: n > 1 ? Math.sqrt(ss / (n - 1)) : null, min, max };
}

/** CSV text (RFC 4180 quoting; numbers as-is, null/undefined as empty). */
export function toCsv(header: readonly string[], rows: readonly (readonly unknown[])[]): string {
  return csvText([csvLine(header), ...rows.map(csvLine)]);
}

/** One row of {@link toCsv}'s text, without its line break: a row can be rendered when its session is analysed, and kept. */
export function csvLine(row: readonly unknown[]): string {
  return row.map(csvCell).join(",");
}

/** The text of a CSV file from its lines ({@link csvLine}, the header's first): one per line, a line break after the last. */
export function csvText(lines: readonly string[]): string {
  return lines.join("\n") + "\n";
}

function csvCell(v: unknown): string {
  if (v === null || v === undefined) return "";
  const s = typeof v === "number" ? (Number.isFinite(v) ? String(v) : "") : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Format a table of strings with padded columns for terminal summaries. */
export function textTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, j) => Math.max(h.length, ...rows.map((r) => (r[j] ?? "").length)));
  const line = (r: readonly string[]) =>
    r
      .map((c, j) => (j === 0 ? c.padEnd(widths[j]) : c.padStart(widths[j])))
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

/**
 * How often each of a session's members got each code (`L` labels): member m's count of label i
 * at [m * L + i]. What compareFrequencies and profilesBySpeaker pool, so that a session's can be counted once and kept
 * with its part (the build's, src/report/shape/parts.ts).
 */
export function memberCounts(cs: Pick<CodedSession, "speakers" | "offsets" | "codes">, members: number, L: number): Float64Array {
  const counts = new Float64Array(members * L);
  for (let t = 0; t < cs.speakers.length; t++) {
    const row = cs.speakers[t] * L;
    for (let k = cs.offsets[t]; k < cs.offsets[t + 1]; k++) {
      // A code outside the L counted (a frame shorter than the join's labels) is not counted, never put in the next member's row.
      if (cs.codes[k] < L) counts[row + cs.codes[k]]++;
    }
  }
  return counts;
}

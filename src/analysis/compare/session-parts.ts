import type { CodeRecord } from "../../coding/records.js";
import type { Session } from "../../transcript/schema.js";
import { codedTurns, membersOf, NO_CONDITION, type CodedSession, type CodedTurns } from "../shared/table.js";

/**
 * The join of sessions and codes ({@link codedTurns}) split into what each session contributes,
 * so that a study of a thousand sessions re-joins only the sessions whose turns or codes changed
 * (issue 11). Each session's part is kept in a per-session memo (src/study/session-memo.ts); the
 * study-level join is put back together from the parts, and equals a join from scratch exactly:
 * compare and stats then count, test and summarise from it as before.
 */

/** What one session contributes to the join: its CodedSession without the session and its members, and its counts. */
export interface CodedSessionPart {
  /**
   * Each turn's speaker, and the speakers the session's participants do not list, in order of
   * first turn (speakersOf): the join then needs only the session's participants, not its turns,
   * which a session loaded unchanged does not parse (study/validated-sessions.ts).
   */
  speakers: Int32Array;
  undeclared: string[];
  primary: Int32Array;
  offsets: Int32Array;
  /** Indices into the codebook's labels, then into this session's `unknownLabels` (in that order). */
  codes: Int32Array;
  codedTurns: number;
  uncodedTurns: number;
  /** Records of this session naming a turn it does not have, and up to 10 of them as "session/turn". */
  orphanRecords: number;
  orphanExamples: string[];
  /** Codes outside the codebook, in order of first use in this session. */
  unknownLabels: string[];
}

/** Join one session with its records (in file order), as codedTurns does within a study. */
export function codedSessionPart(session: Session, records: readonly CodeRecord[], labels: readonly string[]): CodedSessionPart {
  const joined = codedTurns([session], records, labels);
  const { members, speakers, primary, offsets, codes } = joined.sessions[0];
  return {
    speakers,
    undeclared: members.slice(session.participants.length).map((m) => m.id),
    primary,
    offsets,
    codes,
    codedTurns: joined.codedTurns,
    uncodedTurns: joined.uncodedTurns,
    orphanRecords: joined.orphanRecords,
    orphanExamples: joined.orphanExamples,
    unknownLabels: joined.unknownLabels,
  };
}

/**
 * Put the study-level join back together: `parts[i]` is sessions[i]'s part; `stray` are the
 * records naming a session the study does not have (orphans, in file order). Labels outside the
 * codebook are numbered in order of first use over the sessions in order, as codedTurns does.
 */
export function joinParts(
  sessions: readonly Session[],
  parts: readonly CodedSessionPart[],
  labels: readonly string[],
  stray: readonly CodeRecord[],
): CodedTurns {
  const labelList = [...labels];
  const labelIndex = new Map(labelList.map((l, i) => [l, i]));
  const unknownLabels: string[] = [];
  const out: CodedSession[] = [];
  let coded = 0;
  let uncoded = 0;
  let orphanRecords = 0;
  const orphanExamples: string[] = [];
  sessions.forEach((session, s) => {
    const part = parts[s];
    let { codes, primary } = part;
    if (part.unknownLabels.length > 0) {
      // This session's own numbering of unknown codes (after the codebook's) -> the study's.
      const global = part.unknownLabels.map((code) => {
        let i = labelIndex.get(code);
        if (i === undefined) {
          labelIndex.set(code, (i = labelList.length));
          labelList.push(code);
          unknownLabels.push(code);
        }
        return i;
      });
      const remap = (i: number) => (i >= labels.length ? global[i - labels.length] : i);
      codes = codes.map(remap);
      primary = primary.map((i) => (i < 0 ? i : remap(i)));
    }
    coded += part.codedTurns;
    uncoded += part.uncodedTurns;
    orphanRecords += part.orphanRecords;
    for (const example of part.orphanExamples) if (orphanExamples.length < 10) orphanExamples.push(example);
    out.push({
      session,
      condition: session.metadata.condition ?? NO_CONDITION,
      run: session.metadata.run ?? session.id,
      members: membersOf(session, part.undeclared),
      speakers: part.speakers,
      primary,
      offsets: part.offsets,
      codes,
    });
  });
  for (const r of stray) {
    orphanRecords++;
    if (orphanExamples.length < 10) orphanExamples.push(`${r.session}/${r.turn}`);
  }
  return { labels: labelList, unknownLabels, sessions: out, codedTurns: coded, uncodedTurns: uncoded, orphanRecords, orphanExamples };
}

/**
 * A session's codes numbered on their own: the codebook's `known` labels (the first of the
 * join's labels) keep their indices, and the codes outside the codebook this session uses follow,
 * in order of first use. What compare and stats keep per session is counted in this numbering,
 * so that it depends on the session's turns and codes alone: a new session bringing a code the
 * codebook lacks renumbers the study's labels, not the other sessions' memo entries.
 */
export interface OwnCodes {
  /** The session with `primary` and `codes` renumbered (the session itself when it uses no code outside the codebook). */
  session: CodedSession;
  /** Its codes outside the codebook, by own index minus `known`. */
  unknown: string[];
}

/** {@link OwnCodes} of one session of a join whose labels are `labels`, the first `known` of them the codebook's. */
export function ownCodes(cs: CodedSession, labels: readonly string[], known: number): OwnCodes {
  let outside = false;
  for (let k = 0; k < cs.codes.length && !outside; k++) outside = cs.codes[k] >= known;
  if (!outside) return { session: cs, unknown: [] };
  const own = new Map<number, number>();
  const unknown: string[] = [];
  const renumber = (i: number) => {
    if (i < known) return i;
    let j = own.get(i);
    if (j === undefined) {
      own.set(i, (j = known + unknown.length));
      unknown.push(labels[i]);
    }
    return j;
  };
  // Codes in turn order first, so first use is as the join counts it; a primary code is a turn's first code.
  const codes = cs.codes.map(renumber);
  const primary = cs.primary.map((i) => (i < 0 ? i : renumber(i)));
  return { session: { ...cs, codes, primary }, unknown };
}

/**
 * Index into the join's `labels` of each own index of a session whose codes outside the codebook
 * are `unknown` (OwnCodes), or undefined when the two numberings are the same.
 */
export function studyCodes(unknown: readonly string[], labels: readonly string[], known: number): Int32Array | undefined {
  if (unknown.length === labels.length - known && unknown.every((code, u) => labels[known + u] === code)) return undefined;
  const index = new Map(labels.slice(known).map((code, u) => [code, known + u]));
  const out = new Int32Array(known + unknown.length);
  for (let i = 0; i < known; i++) out[i] = i;
  unknown.forEach((code, u) => (out[known + u] = index.get(code)!));
  return out;
}

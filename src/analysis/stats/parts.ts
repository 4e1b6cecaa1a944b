import type { NominalCodebook } from "../../coding/codebook/schema.js";
import type { Session } from "../../transcript/schema.js";
import type { Provenance } from "../../util/provenance.js";
import { arrayLineBytes, jsonWithArrayLines, parseArrayLine } from "../../util/json-layout.js";
import { artifacts, writeArtifact } from "../../study/artifacts.js";
import { writeFileAtomic } from "../../util/fs.js";
import { ownCodes, studyCodes } from "../compare/session-parts.js";
import { knownLabels, type CodedSession } from "../shared/table.js";
import { profileFrame, type ProfileFrame } from "./bales.js";
import { sessionFigures, sessionMetrics, type SessionFigures } from "./metrics.js";
import { sessionRows, statsTables, type SessionRows, type StatsFiles } from "./output.js";
import {
  poolStats,
  sessionCodeCounts,
  sessionCodeStats,
  statsResult,
  type CodedCounts,
  type PooledStats,
  type SessionCodeCounts,
  type SessionCodeStats,
  type SessionEntries,
  type StatsCoded,
  type StatsReport,
} from "./report.js";

/**
 * stats.json and its tables from what each session contributes, kept per session in a session
 * memo (src/stages/stats.ts): the little the figures over sessions are pooled from, and the text
 * the session adds to the files (its entries of stats.json, one line each, and its CSV rows),
 * rendered once when the session is analysed. Adding a session to a large study then reads that
 * text back as bytes and splices it in (util/json-layout.ts jsonWithArrayLines) instead of reading
 * every session's objects back and serialising them again (issue 11). The files are the bytes
 * writeStatsReport writes for buildStats' report of the same study.
 */

/** One session's metrics as kept: what the summaries read, and its text in stats.json and the tables. */
export interface SessionMetricsPart {
  figures: SessionFigures;
  /** Its entry of stats.json's `sessions` (arrayLine), UTF-8 encoded. */
  json: Uint8Array;
  rows: SessionRows;
}

/** One session's {@link SessionMetricsPart}: all of it depends on the session alone. */
export function sessionMetricsPart(session: Session): SessionMetricsPart {
  const metrics = sessionMetrics(session);
  return { figures: sessionFigures(metrics), json: arrayLineBytes(metrics), rows: sessionRows(metrics) };
}

/**
 * What one session contributes to the Bales and sequence parts, as kept: its counts, to pool, and
 * its entries of stats.json. Counted and rendered in the session's own numbering of codes
 * (compare/session-parts.ts ownCodes: the codebook's labels, then its own codes outside the
 * codebook), so that it depends on the session's turns and codes alone, whatever codes outside
 * the codebook other sessions bring.
 */
export interface StatsCodesPart extends SessionCodeCounts {
  /** The session's codes outside the codebook (OwnCodes.unknown). */
  unknown: string[];
  /** Its entries of stats.json (arrayLine), UTF-8 encoded. */
  lines: {
    /** One per member profile (codes.profiles.members). */
    members: Uint8Array[];
    /** Its entry of codes.phases.sessions; null when the codebook has no groups. */
    phases: Uint8Array | null;
    segments: Uint8Array;
    sequence: Uint8Array;
  };
}

/** One session's {@link StatsCodesPart}; `labels` are the join's, the first `known` of them the codebook's. */
export function statsCodesPart(cs: CodedSession, labels: readonly string[], known: number, codebook: NominalCodebook): StatsCodesPart {
  const own = ownCodes(cs, labels, known);
  const frame = profileFrame([...labels.slice(0, known), ...own.unknown], codebook);
  return codesPart(sessionCodeStats(own.session, frame), own.unknown);
}

function codesPart(stats: SessionCodeStats, unknown: string[]): StatsCodesPart {
  return {
    ...sessionCodeCounts(stats),
    unknown,
    lines: {
      members: stats.profiles.members.map(arrayLineBytes),
      phases: stats.phases && arrayLineBytes(stats.phases.session),
      segments: arrayLineBytes(stats.segments.session),
      sequence: arrayLineBytes(stats.sequence),
    },
  };
}

/**
 * A session's part as the study numbers its codes (`frame`'s labels, the first `known` of them
 * the codebook's). Its entries name every label of the study (a member profile has a count for
 * each, 0 or not) and its sequence indexes them, so the ones rendered in its own numbering are
 * the study's only when the study's codes outside the codebook are the session's, in its order
 * (studyCodes says so). Otherwise they depend on the other sessions' codes: the part is counted
 * and rendered again from the study's join, for this run (the memo keeps the session's own).
 */
function inStudyNumbering(part: StatsCodesPart, cs: CodedSession, frame: ProfileFrame, known: number): StatsCodesPart {
  if (!studyCodes(part.unknown, frame.labels, known)) return part;
  return codesPart(sessionCodeStats(cs, frame), frame.labels.slice(known));
}

/** The coded study, and where each session's codes part comes from (computed when not given). */
type CodedStats = StatsCoded & { part?: (cs: CodedSession, compute: () => StatsCodesPart) => StatsCodesPart };

/** Every session's codes part in the study's numbering (`counts`), and what pooling them needs. */
interface CodedParts extends CodedCounts {
  counts: StatsCodesPart[];
}

function codesInStudy(coded: CodedStats): CodedParts {
  const { data, codebook } = coded;
  const frame = profileFrame(data.labels, codebook);
  const known = knownLabels(data);
  const part = coded.part ?? ((_cs, compute) => compute());
  const counts = data.sessions.map((cs) =>
    inStudyNumbering(
      part(cs, () => statsCodesPart(cs, data.labels, known, codebook)),
      cs,
      frame,
      known,
    ),
  );
  return { coded, frame, counts };
}

/** The entries of {@link SessionEntries} as their lines of stats.json, in session order. */
type SessionLines = Record<keyof SessionEntries, Uint8Array[]>;

/** stats.json and its tables in parts: the figures pooled over sessions, each session's entries as lines, and its table rows. */
export interface StatsReportParts {
  pooled: PooledStats;
  lines: SessionLines;
  rows: SessionRows[];
}

/**
 * Compute stats in parts; `measure` gives a session's metrics part and `coded.part` a session's
 * codes part: computed, or kept from an earlier run (src/stages/stats.ts memoises both per
 * session). The figures over sessions are always pooled from every session's part.
 */
export function buildStatsParts(sessions: readonly Session[], coded?: CodedStats, measure = sessionMetricsPart): StatsReportParts {
  const metrics = sessions.map((s) => measure(s));
  const codes = coded && codesInStudy(coded);
  const parts = codes?.counts ?? [];
  return {
    pooled: poolStats(
      metrics.map((m) => m.figures),
      codes,
    ),
    lines: {
      sessions: metrics.map((m) => m.json),
      members: parts.flatMap((p) => p.lines.members),
      phases: parts.flatMap((p) => (p.lines.phases ? [p.lines.phases] : [])),
      segments: parts.map((p) => p.lines.segments),
      sequences: parts.map((p) => p.lines.sequence),
    },
    rows: metrics.map((m) => m.rows),
  };
}

/** Where each of {@link SessionLines} goes in stats.json: the arrays the artifact registry writes one entry per line. */
const LINES_AT = new Map<string, keyof SessionEntries>([
  ["sessions", "sessions"],
  ["codes.profiles.members", "members"],
  ["codes.phases.sessions", "phases"],
  ["codes.segments.sessions", "segments"],
  ["codes.sequences", "sequences"],
]);

/** writeStatsReport for a report in parts: the same bytes, each session's entries and rows written as kept. */
export async function writeStatsParts(study: string, provenance: Provenance, parts: StatsReportParts): Promise<StatsFiles> {
  const json = artifacts.stats.path(study);
  await writeFileAtomic(json, statsJsonOfParts(provenance, parts));
  const tables = statsTables(parts.rows);
  return {
    json,
    sessions: await writeArtifact(artifacts.statsSessions, study, tables.sessions),
    participants: await writeArtifact(artifacts.statsParticipants, study, tables.participants),
  };
}

/** The bytes of stats.json: those writeStatsReport writes for the report of `parts`, with each session's lines as kept. */
function statsJsonOfParts(provenance: Provenance, parts: StatsReportParts): Uint8Array[] {
  // The sessions' own arrays are empty here: jsonWithArrayLines writes each array's lines in its place.
  const report: StatsReport = { provenance, ...statsResult(parts.pooled, { sessions: [], members: [], phases: [], segments: [], sequences: [] }) };
  const arrays = artifacts.stats.lineArrays!.map((path) => {
    const entries = LINES_AT.get(path);
    if (!entries)
      throw new Error(`${artifacts.stats.relative()}: the artifact registry writes ${path} one entry per line, and the report's parts hold no lines for it`);
    return { path, lines: parts.lines[entries] };
  });
  return jsonWithArrayLines(report, arrays);
}

/**
 * The report of `parts` as objects (the stats command's summary and --json): each session's
 * entries parsed from their lines, so they hold the values the file holds.
 */
export function statsReportOf(provenance: Provenance, parts: StatsReportParts): StatsReport {
  const { lines } = parts;
  return {
    provenance,
    ...statsResult(parts.pooled, {
      sessions: parsed(lines.sessions),
      members: parsed(lines.members),
      phases: parsed(lines.phases),
      segments: parsed(lines.segments),
      sequences: parsed(lines.sequences),
    }),
  };
}

/** The values of lines of stats.json's per-session arrays. */
const parsed = <T>(lines: readonly Uint8Array[]): T[] => lines.map((line) => parseArrayLine<T>(line));

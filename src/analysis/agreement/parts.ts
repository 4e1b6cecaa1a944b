import type { CodeRecord } from "../../coding/records.js";
import { arrayLine, lineSeparator } from "../../util/json-layout.js";
import { artifacts } from "../../study/artifacts.js";
import { csvRows } from "../../util/csv.js";
import type { Session } from "../../transcript/schema.js";
import type { Rating } from "../reliability/values.js";
import { nominalValue, usable, type CodebookShape, type Coverage } from "./study.js";

/**
 * The per-session side of `colloquy agree` (issue 11): what the alignment of the coders' records
 * yields for one session (or any set of records), and how the parts of a study's sessions are
 * recombined into exactly what aligning the whole study at once gives. A part is deterministic
 * in its session's content and records, so the agree stage keeps it in a session memo and, after
 * a session is added, aligns that session only.
 */

/** A variable compared: the nominal "codes", or one scale of a scales codebook. */
export interface AgreementVariable {
  name: string;
  value: (record: CodeRecord) => Rating;
}

/** One unit on which the coders did not all agree, with the turn's words for review. */
export interface Disagreement {
  session: string;
  turn: string;
  /** Speaker's name as in the transcript (null when the turn is not in the study's sessions). */
  speaker: string | null;
  /** "codes" for nominal codebooks, else the scale id. */
  variable: string;
  /** Each coder's value (multi-codes joined by "+"). */
  values: Record<string, string | number>;
  /** The turn text exactly as stored (null when the turn could not be found). */
  text: string | null;
}

type PartialGroup = Coverage["partial"][number];

/** What aligning one session's records (or any records) gives; counts are per coder, in coder order. */
export interface AgreementPart {
  /** Units every coder coded (with a usable value). */
  unitsCodedByAll: number;
  /** Units coded (with a usable value) by at least one coder. */
  unitsCodedByAny: number;
  perCoder: number[];
  emptyRecords: number[];
  /** ratings[variable][coder][unit] of the units every coder coded, in (session, turn) order. */
  ratings: Rating[][][];
  /** Units some coders left out, grouped by who coded them, in order of first appearance. */
  partial: PartialGroup[];
  /**
   * Those units in order, as runs of one session: how many, their turns (the JSON text of the list)
   * and groups (indexes into `partial`). Compact, as a memo reads thousands of them back, and the
   * study lists only its first PARTIAL_LIST_LIMIT (coverage.partialUnits): the turns are parsed
   * for those alone (a string per turn id took 25 ms to load at 100,000 turns).
   */
  partialRuns: { session: string; count: number; turns: string; groups: number[] }[];
  disagreements: DisagreementTexts;
  /** Units every coder coded whose turn is not in the study's sessions. */
  notFound: number;
}

const PARTIAL_LIST_LIMIT = 1000;

/** Where agreement-<codebook>.json lists the disagreements, one per line (the artifact registry says which). */
export const [DISAGREEMENT_ROWS] = artifacts.agreement.lineArrays!;

/**
 * Disagreements as the files hold them, in UTF-8: the rows' lines of agreement-<codebook>.json
 * (joined as the file joins them: lineSeparator) and of the disagreements CSV (joined by "\n", no
 * header), one text per part that has any. The writer puts them in place; loading them as objects
 * from the memo and writing them out as JSON and CSV again took ~50 ms of a run that adds one
 * session to a 100,000-turn study (issue 11).
 */
export interface DisagreementTexts {
  count: number;
  json: Uint8Array[];
  csv: Uint8Array[];
}

/** A disagreement's CSV fields: session, turn, speaker, variable, one per coder, text (verbatim). */
export function disagreementFields(row: Disagreement, coders: readonly string[]): (string | number)[] {
  return [row.session, row.turn, row.speaker ?? "", row.variable, ...coders.map((c) => row.values[c] ?? ""), row.text ?? ""];
}

function disagreementTexts(rows: readonly Disagreement[], coders: readonly string[]): DisagreementTexts {
  if (rows.length === 0) return { count: 0, json: [], csv: [] };
  const csv = csvRows(rows.map((row) => disagreementFields(row, coders)));
  return { count: rows.length, json: [Buffer.from(rows.map(arrayLine).join(lineSeparator(DISAGREEMENT_ROWS)))], csv: [Buffer.from(csv)] };
}

/**
 * The order of `localeCompare(…, undefined, { numeric: true })`, from one collator: calling
 * localeCompare with options builds a collator per call, seconds over a large study's units.
 */
export const byNumber = new Intl.Collator(undefined, { numeric: true });

/** The variables of a codebook shape, in report order: "codes", or each scale. */
export function shapeVariables(shape: CodebookShape): AgreementVariable[] {
  if (shape.kind === "nominal") return [{ name: "codes", value: nominalValue }];
  return (shape.scales ?? []).map((scale) => ({ name: scale.id, value: (r: CodeRecord): Rating => r.scores?.[scale.id] ?? null }));
}

/** Speaker name and text of a turn, for the disagreements list. */
export interface TurnInfo {
  speaker: string | null;
  text: string;
}

/** (session, turn) => speaker and text, from the given sessions (the last turn of an id wins, as a Map fills). */
export function turnLookup(sessions: readonly Session[]): (session: string, turn: string) => TurnInfo | undefined {
  const byId = new Map<string, Session[]>();
  for (const session of sessions) {
    const same = byId.get(session.id);
    if (same) same.push(session);
    else byId.set(session.id, [session]);
  }
  // Indexed lazily per session: only sessions with units every coder coded need their turns.
  const index = new Map<string, Map<string, TurnInfo>>();
  return (session, turn) => {
    let turns = index.get(session);
    if (!turns) {
      turns = new Map();
      for (const s of byId.get(session) ?? []) {
        const names = new Map(s.participants.map((p) => [p.id, p.name]));
        for (const t of s.turns) turns.set(t.id, { speaker: names.get(t.speaker) ?? t.speaker, text: t.text });
      }
      index.set(session, turns);
    }
    return turns.get(turn);
  };
}

interface Unit {
  session: string;
  turn: string;
  records: Map<string, CodeRecord>;
}

/**
 * Align records by (session, turn) and account for them: the units every coder coded (their
 * ratings and disagreements) and the ones some left out. Applied to one session's records or to
 * a whole study's, with the same result once the parts are combined in session order.
 */
export function alignPart(
  recordsByCoder: ReadonlyMap<string, readonly CodeRecord[]>,
  coders: readonly string[],
  shape: CodebookShape,
  turnInfo: (session: string, turn: string) => TurnInfo | undefined,
): AgreementPart {
  const variables = shapeVariables(shape);
  const units = new Map<string, Unit>();
  const perCoder = coders.map(() => 0);
  const emptyRecords = coders.map(() => 0);
  coders.forEach((coder, c) => {
    for (const record of recordsByCoder.get(coder) ?? []) {
      if (!usable(record, shape)) {
        emptyRecords[c]++;
        continue;
      }
      perCoder[c]++;
      const key = `${record.session}\u0000${record.turn}`;
      let unit = units.get(key);
      if (!unit) units.set(key, (unit = { session: record.session, turn: record.turn, records: new Map() }));
      unit.records.set(coder, record);
    }
  });
  const sorted = [...units.values()].sort((x, y) => byNumber.compare(x.session, y.session) || byNumber.compare(x.turn, y.turn));
  const ratings: Rating[][][] = variables.map(() => coders.map(() => []));
  const groups = new Map<string, { index: number; group: PartialGroup }>();
  const partialRuns: { session: string; turns: string[]; groups: number[] }[] = [];
  const disagreements: Disagreement[] = [];
  let partialCount = 0;
  let notFound = 0;
  for (const unit of sorted) {
    if (unit.records.size === coders.length) {
      const info = turnInfo(unit.session, unit.turn);
      if (!info) notFound++;
      variables.forEach(({ name, value }, v) => {
        const values: Record<string, string | number> = {};
        let differ = false;
        let first: Rating | undefined;
        coders.forEach((coder, c) => {
          const rating = value(unit.records.get(coder)!);
          ratings[v][c].push(rating);
          if (rating === null || rating === undefined) return;
          values[coder] = rating;
          if (first === undefined) first = rating;
          else if (rating !== first) differ = true;
        });
        if (differ)
          disagreements.push({ session: unit.session, turn: unit.turn, speaker: info?.speaker ?? null, variable: name, values, text: info?.text ?? null });
      });
      continue;
    }
    const codedBy = coders.filter((c) => unit.records.has(c));
    const key = codedBy.join("\u0000");
    let found = groups.get(key);
    if (!found) groups.set(key, (found = { index: groups.size, group: { codedBy, missing: coders.filter((c) => !unit.records.has(c)), units: 0 } }));
    found.group.units++;
    partialCount++;
    let run = partialRuns.at(-1);
    if (run?.session !== unit.session) partialRuns.push((run = { session: unit.session, turns: [], groups: [] }));
    run.turns.push(unit.turn);
    run.groups.push(found.index);
  }
  const partial = [...groups.values()].map((g) => g.group);
  return {
    unitsCodedByAll: sorted.length - partialCount,
    unitsCodedByAny: sorted.length,
    perCoder,
    emptyRecords,
    ratings,
    partial,
    partialRuns: partialRuns.map((run) => ({ session: run.session, count: run.turns.length, turns: JSON.stringify(run.turns), groups: run.groups })),
    disagreements: disagreementTexts(disagreements, coders),
    notFound,
  };
}

/** The parts of a study's sessions, in session order, as one: what alignPart gives for all their records. */
export function combineParts(parts: readonly AgreementPart[], coders: readonly string[], variables: number): AgreementPart {
  const ratings: Rating[][][] = Array.from({ length: variables }, () => coders.map(() => []));
  const perCoder = coders.map(() => 0);
  const emptyRecords = coders.map(() => 0);
  const groups = new Map<string, { index: number; group: PartialGroup }>();
  const partialRuns: AgreementPart["partialRuns"] = [];
  const disagreements: DisagreementTexts = { count: 0, json: [], csv: [] };
  let unitsCodedByAll = 0;
  let unitsCodedByAny = 0;
  let notFound = 0;
  for (const part of parts) {
    unitsCodedByAll += part.unitsCodedByAll;
    unitsCodedByAny += part.unitsCodedByAny;
    notFound += part.notFound;
    coders.forEach((_, c) => {
      perCoder[c] += part.perCoder[c];
      emptyRecords[c] += part.emptyRecords[c];
      for (let v = 0; v < variables; v++) for (const rating of part.ratings[v][c]) ratings[v][c].push(rating);
    });
    // The part's group indexes, renumbered into the combined groups.
    const index = part.partial.map((group) => {
      const key = group.codedBy.join("\u0000");
      let known = groups.get(key);
      if (known) known.group.units += group.units;
      else groups.set(key, (known = { index: groups.size, group: { codedBy: [...group.codedBy], missing: [...group.missing], units: group.units } }));
      return known.index;
    });
    for (const run of part.partialRuns) partialRuns.push({ ...run, groups: run.groups.map((g) => index[g]) });
    disagreements.count += part.disagreements.count;
    disagreements.json.push(...part.disagreements.json);
    disagreements.csv.push(...part.disagreements.csv);
  }
  const partial = [...groups.values()].map((g) => g.group);
  return { unitsCodedByAll, unitsCodedByAny, perCoder, emptyRecords, ratings, partial, partialRuns, disagreements, notFound };
}

/** The coverage account of the whole study from its combined part. */
export function partCoverage(part: AgreementPart, coders: readonly string[]): Coverage {
  const partialUnits: Coverage["partialUnits"] = [];
  let partialCount = 0;
  for (const run of part.partialRuns) {
    partialCount += run.count;
    if (partialUnits.length >= PARTIAL_LIST_LIMIT) continue;
    const turns = JSON.parse(run.turns) as string[];
    for (let u = 0; u < turns.length && partialUnits.length < PARTIAL_LIST_LIMIT; u++)
      partialUnits.push({ session: run.session, turn: turns[u], codedBy: [...part.partial[run.groups[u]].codedBy] });
  }
  return {
    unitsCodedByAll: part.unitsCodedByAll,
    unitsCodedByAny: part.unitsCodedByAny,
    perCoder: Object.fromEntries(coders.map((c, i) => [c, part.perCoder[i]])),
    partial: [...part.partial].sort((a, b) => b.units - a.units),
    partialUnits,
    partialUnitsTruncated: partialCount > partialUnits.length,
    emptyRecords: Object.fromEntries(coders.map((c, i) => [c, part.emptyRecords[i]])),
  };
}

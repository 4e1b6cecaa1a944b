import type { CodeValue } from "../../coding/records.js";
import type { Session } from "../../transcript/schema.js";
import type { Rating } from "../reliability/values.js";
import { nominalValue, usable, type CodebookShape, type Coverage } from "./study.js";

/** The alignment of the coders' records by turn, for `colloquy agree`. */

/** A variable compared: the nominal "codes", or one scale of a scales codebook. */
export interface AgreementVariable {
  name: string;
  value: (record: CodeValue) => Rating;
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

/** What aligning the coders' records gives; counts are per coder, in coder order. */
export interface Alignment {
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
  /** Those units in order (at most PARTIAL_LIST_LIMIT), with who coded them. */
  partialUnits: Coverage["partialUnits"];
  /** All of those units. */
  partialCount: number;
  disagreements: Disagreement[];
  /** Units every coder coded whose turn is not in the study's sessions. */
  notFound: number;
}

const PARTIAL_LIST_LIMIT = 1000;

/** A disagreement's CSV fields: session, turn, speaker, variable, one per coder, text (verbatim). */
export function disagreementFields(row: Disagreement, coders: readonly string[]): (string | number)[] {
  return [row.session, row.turn, row.speaker ?? "", row.variable, ...coders.map((c) => row.values[c] ?? ""), row.text ?? ""];
}

/**
 * The order of `localeCompare(…, undefined, { numeric: true })`, from one collator: calling
 * localeCompare with options builds a collator per call, seconds over a large study's units.
 */
export const byNumber = new Intl.Collator(undefined, { numeric: true });

/** The variables of a codebook shape, in report order: "codes", or each scale. */
export function shapeVariables(shape: CodebookShape): AgreementVariable[] {
  if (shape.kind === "nominal") return [{ name: "codes", value: nominalValue }];
  return (shape.scales ?? []).map((scale) => ({ name: scale.id, value: (r: CodeValue): Rating => r.scores?.[scale.id] ?? null }));
}

/** Speaker name and text of a turn, for the disagreements list. */
export interface TurnInfo {
  speaker: string | null;
  text: string;
}

/**
 * (session, turn) => speaker and text, from the given sessions (the last turn of an id wins, as a
 * Map fills). A session's turns are indexed when first asked for, and `forget` lets the indexed
 * ones go: only sessions with units every coder coded need their turns, one group at a time.
 */
function turnLookup(sessions: readonly Session[]): { info: (session: string, turn: string) => TurnInfo | undefined; forget: () => void } {
  const byId = new Map<string, Session[]>();
  for (const session of sessions) {
    const same = byId.get(session.id);
    if (same) same.push(session);
    else byId.set(session.id, [session]);
  }
  const index = new Map<string, Map<string, TurnInfo>>();
  return {
    info(session, turn) {
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
    },
    forget: () => index.clear(),
  };
}

/** One unit (a session's turn) as one coder's record of it, per coder (in coder order); the last record of a coder wins. */
interface Unit {
  session: string;
  turn: string;
  records: (CodeValue | undefined)[];
  coders: number;
}

/**
 * Each coder's usable records, by session, as indices into that coder's list (in file order), and
 * the sessions in order of first appearance (coders in order, each in file order): what the units
 * are made from a session at a time, so that the study's units are never all held at once.
 */
function bySessionOf(lists: readonly (readonly CodeValue[])[], shape: CodebookShape, perCoder: number[], emptyRecords: number[]) {
  const sessions = new Map<string, number[][]>();
  lists.forEach((records, c) => {
    records.forEach((record, r) => {
      if (!usable(record, shape)) {
        emptyRecords[c]++;
        return;
      }
      perCoder[c]++;
      let mine = sessions.get(record.session);
      if (!mine) sessions.set(record.session, (mine = lists.map(() => [])));
      mine[c].push(r);
    });
  });
  return sessions;
}

/**
 * The units of a group of sessions the order counts as one (byNumber: "s1" and "s01" compare
 * equal), in the order the study-wide alignment sorted them: by turn, units that compare equal in
 * order of first appearance (coders in order, each coder's records in file order).
 */
function unitsOf(group: readonly string[], lists: readonly (readonly CodeValue[])[], indices: ReadonlyMap<string, number[][]>): Unit[] {
  const units = new Map<string, Unit>();
  lists.forEach((records, c) => {
    const mine = group.flatMap((session) => indices.get(session)![c]);
    // Several sessions in one group: their records in file order again.
    if (group.length > 1) mine.sort((a, b) => a - b);
    for (const r of mine) {
      const record = records[r];
      const key = `${record.session}\u0000${record.turn}`;
      let unit = units.get(key);
      if (!unit) units.set(key, (unit = { session: record.session, turn: record.turn, records: lists.map(() => undefined), coders: 0 }));
      if (unit.records[c] === undefined) unit.coders++;
      unit.records[c] = record;
    }
  });
  return [...units.values()].sort((x, y) => byNumber.compare(x.session, y.session) || byNumber.compare(x.turn, y.turn));
}

/**
 * Align records by (session, turn) and account for them: the units every coder coded (their
 * ratings and disagreements, with the turn's words from `sessions`) and the ones some left out.
 * Units are made and let go a session at a time, in (session, turn) order.
 */
export function alignment(
  recordsByCoder: ReadonlyMap<string, readonly CodeValue[]>,
  coders: readonly string[],
  shape: CodebookShape,
  sessions: readonly Session[],
): Alignment {
  const turns = turnLookup(sessions);
  const variables = shapeVariables(shape);
  const lists = coders.map((coder) => recordsByCoder.get(coder) ?? []);
  const perCoder = coders.map(() => 0);
  const emptyRecords = coders.map(() => 0);
  const indices = bySessionOf(lists, shape, perCoder, emptyRecords);
  // Stable: sessions that compare equal keep their order of first appearance.
  const order = [...indices.keys()].sort((a, b) => byNumber.compare(a, b));
  const ratings: Rating[][][] = variables.map(() => coders.map(() => []));
  const groups = new Map<string, { index: number; group: PartialGroup }>();
  const partialUnits: Coverage["partialUnits"] = [];
  const disagreements: Disagreement[] = [];
  let unitsCodedByAny = 0;
  let partialCount = 0;
  let notFound = 0;
  for (let g = 0; g < order.length;) {
    let end = g + 1;
    while (end < order.length && byNumber.compare(order[g], order[end]) === 0) end++;
    const units = unitsOf(order.slice(g, end), lists, indices);
    g = end;
    unitsCodedByAny += units.length;
    for (const unit of units) {
      if (unit.coders === coders.length) {
        const info = turns.info(unit.session, unit.turn);
        if (!info) notFound++;
        variables.forEach(({ name, value }, v) => {
          const values: Record<string, string | number> = {};
          let differ = false;
          let first: Rating | undefined;
          coders.forEach((coder, c) => {
            const rating = value(unit.records[c]!);
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
      const codedBy = coders.filter((_, c) => unit.records[c] !== undefined);
      const key = codedBy.join("\u0000");
      let found = groups.get(key);
      if (!found)
        groups.set(key, (found = { index: groups.size, group: { codedBy, missing: coders.filter((_, c) => unit.records[c] === undefined), units: 0 } }));
      found.group.units++;
      partialCount++;
      if (partialUnits.length < PARTIAL_LIST_LIMIT) partialUnits.push({ session: unit.session, turn: unit.turn, codedBy });
    }
    turns.forget();
  }
  const partial = [...groups.values()].map((g) => g.group);
  return {
    unitsCodedByAll: unitsCodedByAny - partialCount,
    unitsCodedByAny,
    perCoder,
    emptyRecords,
    ratings,
    partial,
    partialUnits,
    partialCount,
    disagreements,
    notFound,
  };
}

/** The coverage account of the study from its alignment. */
export function coverageOf(part: Alignment, coders: readonly string[]): Coverage {
  return {
    unitsCodedByAll: part.unitsCodedByAll,
    unitsCodedByAny: part.unitsCodedByAny,
    perCoder: Object.fromEntries(coders.map((c, i) => [c, part.perCoder[i]])),
    partial: [...part.partial].sort((a, b) => b.units - a.units),
    partialUnits: part.partialUnits,
    partialUnitsTruncated: part.partialCount > part.partialUnits.length,
    emptyRecords: Object.fromEntries(coders.map((c, i) => [c, part.emptyRecords[i]])),
  };
}

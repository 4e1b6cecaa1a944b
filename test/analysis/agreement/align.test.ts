import { describe, expect, it } from "vitest";
import fc from "fast-check";
import type { CodeValue } from "../../../src/coding/records.js";
import { alignment, byNumber, shapeVariables, type Alignment, type Disagreement } from "../../../src/analysis/agreement/align.js";
import { usable, type CodebookShape, type Coverage } from "../../../src/analysis/agreement/study.js";
import type { Rating } from "../../../src/analysis/reliability/values.js";
import type { Session } from "../../../src/transcript/schema.js";

/**
 * The alignment makes its units a session at a time (issue 40: the study's units are never all
 * held at once). It must give exactly what aligning every unit of the study at once gave: the
 * reference below is that implementation, as it was before.
 */
function wholeStudyAlignment(
  recordsByCoder: ReadonlyMap<string, readonly CodeValue[]>,
  coders: readonly string[],
  shape: CodebookShape,
  sessions: readonly Session[],
): Alignment {
  const turnsOf = new Map<string, Map<string, { speaker: string | null; text: string }>>();
  for (const s of sessions) {
    const turns = turnsOf.get(s.id) ?? new Map();
    const names = new Map(s.participants.map((p) => [p.id, p.name]));
    for (const t of s.turns) turns.set(t.id, { speaker: names.get(t.speaker) ?? t.speaker, text: t.text });
    turnsOf.set(s.id, turns);
  }
  const variables = shapeVariables(shape);
  const units = new Map<string, { session: string; turn: string; records: Map<string, CodeValue> }>();
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
  const groups = new Map<string, Coverage["partial"][number]>();
  const partialUnits: Coverage["partialUnits"] = [];
  const disagreements: Disagreement[] = [];
  let partialCount = 0;
  let notFound = 0;
  for (const unit of sorted) {
    if (unit.records.size === coders.length) {
      const info = turnsOf.get(unit.session)?.get(unit.turn);
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
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { codedBy, missing: coders.filter((c) => !unit.records.has(c)), units: 0 }));
    group.units++;
    partialCount++;
    if (partialUnits.length < 1000) partialUnits.push({ session: unit.session, turn: unit.turn, codedBy });
  }
  return {
    unitsCodedByAll: sorted.length - partialCount,
    unitsCodedByAny: sorted.length,
    perCoder,
    emptyRecords,
    ratings,
    partial: [...groups.values()],
    partialUnits,
    partialCount,
    disagreements,
    notFound,
  };
}

// Ids that the numeric order takes as equal ("s1", "s01") or orders apart from their text ("s2" < "s10").
const SESSION_IDS = ["s1", "s01", "s2", "s10", "S1", "b", "a-3"];
const TURN_IDS = ["t1", "t01", "t2", "t10", "t-1", "u"];
const CODES = ["agrees", "disagrees", "asks"];

const sessionsOf = (ids: readonly string[]): Session[] =>
  ids.map((id) => ({
    schemaVersion: 1,
    id,
    metadata: {},
    participants: [{ id: "p", name: "Pat", kind: "human" }],
    // Not every turn a record names exists: those units are "not found".
    turns: TURN_IDS.slice(0, 4).map((turn, index) => ({ id: turn, index, speaker: index % 2 ? "p" : "q", text: `${id} ${turn}` })),
  })) as Session[];

const record = fc.record({
  session: fc.constantFrom(...SESSION_IDS),
  turn: fc.constantFrom(...TURN_IDS),
  codes: fc.option(fc.subarray(CODES), { nil: undefined }),
  scores: fc.option(fc.record({ clarity: fc.integer({ min: 1, max: 5 }) }, { requiredKeys: [] }), { nil: undefined }),
});

describe("alignment, a session at a time", () => {
  it("equals the alignment of every unit of the study at once (nominal and scales, duplicates, ids the order takes as equal)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(record, { maxLength: 40 }), { minLength: 2, maxLength: 3 }),
        fc.boolean(),
        fc.subarray(SESSION_IDS),
        (lists, nominal, present) => {
          const coders = lists.map((_, c) => `coder${c}`);
          const byCoder = new Map(lists.map((list, c) => [coders[c], list.map((r): CodeValue => ({ ...r, codebookVersion: "1" }))]));
          const shape: CodebookShape = nominal
            ? { id: "x", kind: "nominal", version: "1", definition: "loaded", categories: CODES, multiple: true }
            : { id: "x", kind: "scales", version: "1", definition: "loaded", scales: [{ id: "clarity", points: 5 }] };
          const sessions = sessionsOf(present);
          expect(alignment(byCoder, coders, shape, sessions)).toEqual(wholeStudyAlignment(byCoder, coders, shape, sessions));
        },
      ),
      { numRuns: 400 },
    );
  });
});

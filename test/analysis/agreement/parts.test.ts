import { describe, expect, it } from "vitest";
import type { CodeRecord } from "../../../src/coding/records.js";
import { recordsBySession } from "../../../src/coding/records.js";
import {
  alignPart,
  combineParts,
  partCoverage,
  shapeVariables,
  turnLookup,
  type AgreementPart,
  type Disagreement,
} from "../../../src/analysis/agreement/parts.js";
import { lineSeparator, lineText } from "../../../src/util/json-layout.js";
import { codesDigest } from "../../../src/study/session-memo.js";

/** The memo inputs agree gives a session part: one codesDigest per compared coder. */
const partInputs = (lists: readonly (readonly CodeRecord[])[]) => lists.map(codesDigest).join(" ");
import type { CodebookShape } from "../../../src/analysis/agreement/study.js";
import type { Session } from "../../../src/transcript/schema.js";

/**
 * The agree stage aligns each session on its own and recombines the parts (issue 11): the
 * combination must be exactly what aligning every record at once gives, in the same order
 * (numeric session and turn order), with the same coverage account.
 */

const coders = ["rules", "human:a", "human:b"];
const categories = ["x", "y", "z"];

function record(coder: string, session: string, turn: string, value: Partial<CodeRecord>): CodeRecord {
  return { session, turn, codebook: "cb", codebookVersion: "1", coder, provenance: {}, createdAt: "2026-01-01T00:00:00.000Z", ...value };
}

/** Deterministic pseudo-random records: every session coded by rules, some turns by one or both humans, some records empty or repeated. */
function studyRecords(sessions: string[], turns: number, scales: boolean): Map<string, CodeRecord[]> {
  let state = 7;
  const next = (n: number) => ((state = (state * 1103515245 + 12345) % 2147483648), state % n);
  const value = (): Partial<CodeRecord> =>
    scales ? { scores: { warmth: 1 + next(5), ...(next(4) ? { pace: 1 + next(3) } : {}) } } : { codes: [categories[next(3)]] };
  const out = new Map<string, CodeRecord[]>(coders.map((c) => [c, []]));
  for (const session of sessions) {
    for (let t = turns - 1; t >= 0; t--) {
      const turn = `t${t}`;
      out.get("rules")!.push(record("rules", session, turn, next(10) === 0 ? {} : value()));
      if (next(3) === 0) out.get("human:a")!.push(record("human:a", session, turn, value()));
      if (next(3) === 0) out.get("human:b")!.push(record("human:b", session, turn, value()));
      if (next(20) === 0) out.get("human:b")!.push(record("human:b", session, turn, value()));
    }
  }
  return out;
}

function sessionsOf(ids: string[], turns: number): Session[] {
  return ids.map(
    (id) =>
      ({
        id,
        participants: [{ id: "p1", name: "Ada" }],
        turns: Array.from({ length: turns - 100 }, (_, t) => ({ id: `t${t}`, speaker: "p1", text: `${id} turn ${t}` })),
      }) as unknown as Session,
  );
}

/** Per-session parts in numeric session order, combined. */
function perSession(records: Map<string, CodeRecord[]>, shape: CodebookShape, sessions: Session[]) {
  const lookup = turnLookup(sessions);
  const bySession = coders.map((c) => recordsBySession(records.get(c)!));
  const ids = [...new Set(bySession.flatMap((m) => [...m.keys()]))].sort(new Intl.Collator(undefined, { numeric: true }).compare);
  const parts = ids.map((id) => alignPart(new Map(coders.map((c, i) => [c, bySession[i].get(id) ?? []])), coders, shape, lookup));
  return combineParts(parts, coders, shapeVariables(shape).length);
}

describe("agreement parts", () => {
  const ids = ["s10", "s2", "s1", "s33", "s3"];
  const shapes: CodebookShape[] = [
    { id: "cb", kind: "nominal", version: "1", definition: "loaded", categories },
    {
      id: "cb",
      kind: "scales",
      version: "1",
      definition: "loaded",
      scales: [
        { id: "warmth", points: 5 },
        { id: "pace", points: 3 },
      ],
    },
  ];
  for (const shape of shapes) {
    it(`per-session parts combine to the whole study's alignment (${shape.kind})`, () => {
      // 5 sessions x 700 turns: over 1000 units left out by some coder, so the listed ones are cut across sessions.
      const records = studyRecords(ids, 700, shape.kind === "scales");
      const sessions = sessionsOf(ids, 700);
      const whole = alignPart(records, coders, shape, turnLookup(sessions));
      const combined = perSession(records, shape, sessions);
      // The disagreements' texts as the files join them: one text per part, joined as their rows are.
      const joined = (part: AgreementPart) => ({
        ...part,
        disagreements: {
          count: part.disagreements.count,
          json: part.disagreements.json.map(lineText).join(lineSeparator("disagreements.rows")),
          csv: part.disagreements.csv.map(lineText).join("\n"),
        },
      });
      expect(combined.disagreements.json.length).toBeGreaterThan(1);
      expect(joined(combined)).toEqual(joined(whole));
      const rows = JSON.parse(`[${joined(whole).disagreements.json}]`) as Disagreement[];
      expect(rows).toHaveLength(whole.disagreements.count);
      const coverage = partCoverage(combined, coders);
      expect(coverage).toEqual(partCoverage(whole, coders));
      expect(coverage.partialUnitsTruncated).toBe(true);
      expect(coverage.partialUnits).toHaveLength(1000);
      expect(coverage.partialUnits[0].session).toBe("s1");
      expect(coverage.partialUnits.at(-1)!.session).toBe("s2");
      expect(coverage.unitsCodedByAll).toBe(whole.ratings[0][0].length);
      expect(coverage.emptyRecords.rules).toBeGreaterThan(0);
      // Turns not in the sessions (the last 100 of each session) are counted, and listed without text.
      expect(whole.notFound).toBeGreaterThan(0);
      expect(rows.some((d) => d.text === null)).toBe(true);
      expect(rows.some((d) => d.text !== null && d.speaker === "Ada")).toBe(true);
    });
  }

  it("the digest of a part's records changes with what a part reads of a record, and only with that", () => {
    const base = [record("rules", "s1", "t1", { codes: ["x"] }), record("rules", "s1", "t2", { codes: ["y"] })];
    const digest = partInputs([base, []]);
    expect(partInputs([base.map((r) => ({ ...r, provenance: { other: 1 }, createdAt: "later" })), []])).toBe(digest);
    expect(partInputs([[base[0], { ...base[1], codes: ["z"] }], []])).not.toBe(digest);
    expect(partInputs([[base[0], { ...base[1], codes: ["y", "x"] }], []])).not.toBe(digest);
    expect(partInputs([[base[0], { ...base[1], scores: { s: 1 } }], []])).not.toBe(digest);
    expect(partInputs([[base[1], base[0]], []])).not.toBe(digest);
    expect(partInputs([[base[0]], [base[1]]])).not.toBe(digest);
    expect(partInputs([[{ ...base[0], turn: "t1:1" }], []])).not.toBe(partInputs([[{ ...base[0], turn: "t1" }], []]));
  });
});

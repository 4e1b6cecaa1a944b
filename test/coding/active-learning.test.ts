import { describe, expect, it } from "vitest";
import { uncertainSample, type Doubt } from "../../src/coding/active-learning.js";
import { codeableTurns } from "../../src/coding/sample.js";
import type { Session } from "../../src/transcript/schema.js";

// Three sessions of 10 turns with distinct texts. Session "a" holds the least sure turns (margins
// 0.00-0.09), "b" the next (0.10-0.19), "c" the surest (0.20-0.29); even turns are predicted
// "gives-opinion", odd ones "agrees".
const TEXTS = [
  "I think we should ship the parser first",
  "yes agreed",
  "what does the client want for the login page",
  "ok",
  "the build fails on the date test, here is the trace",
  "sounds good to me",
  "can you try the second option and report back",
  "haha nice",
  "let me summarise where we are with the release",
  "fine by me",
];
const session = (id: string): Session => ({
  schemaVersion: 1,
  id,
  metadata: {},
  participants: [{ id: "p", name: "p", kind: "human" }],
  turns: TEXTS.map((text, i) => ({ id: `t${i}`, index: i, speaker: "p", text: `${text} (${id})`, type: "message" as const })),
});
const units = codeableTurns(["a", "b", "c"].map(session)).turns;
const doubt = new Map<string, Doubt>(
  units.map((u) => [
    `${u.session.id}\u0000${u.turn.id}`,
    { sure: "abc".indexOf(u.session.id) / 10 + u.position / 100, code: u.position % 2 ? "agrees" : "gives-opinion" },
  ]),
);
const keys = (handCoded: Set<string>, n: number, seed = 1) =>
  uncertainSample(units, n, doubt, handCoded, seed).units.map((u) => `${u.session.id}\u0000${u.turn.id}`);

describe("uncertainSample: colloquy sample --strategy uncertain", () => {
  it("spreads the sample across sessions: no session gets more than its share while others have candidates", () => {
    const picked = keys(new Set(), 6);
    const perSession = new Map<string, number>();
    for (const k of picked) perSession.set(k.split("\u0000")[0], (perSession.get(k.split("\u0000")[0]) ?? 0) + 1);
    expect(picked).toHaveLength(6);
    expect([...perSession.values()]).toEqual([2, 2, 2]);
  });

  it("is deterministic for a seed, and never proposes a hand-coded turn or one the coder did not code", () => {
    const handCoded = new Set(units.slice(0, 5).map((u) => `${u.session.id}\u0000${u.turn.id}`));
    const partial = new Map([...doubt].filter(([k]) => !k.startsWith("c\u0000")));
    const pick = () => uncertainSample(units, 8, partial, handCoded, 3).units.map((u) => `${u.session.id}\u0000${u.turn.id}`);
    expect(pick()).toEqual(pick());
    for (const k of pick()) {
      expect(handCoded.has(k)).toBe(false);
      expect(partial.has(k)).toBe(true);
    }
  });

  it("least-sure takes the smallest margins, per-code the least sure of each predicted code in turn", () => {
    const one = units.filter((u) => u.session.id === "a");
    const ids = (order: "least-sure" | "per-code", n: number, handCoded = new Set<string>()) =>
      uncertainSample(one, n, doubt, handCoded, 1, order).units.map((u) => u.turn.id);
    expect(ids("least-sure", 3)).toEqual(["t0", "t1", "t2"]);
    expect(ids("least-sure", 3, new Set(["a\u0000t1"]))).toEqual(["t0", "t2", "t3"]);
    // Margins 0.00-0.09 over the turns; "gives-opinion" on even turns, "agrees" on odd ones. With
    // predicted codes skewed to one category, per-code still asks about the other one.
    const skewed = new Map([...doubt].map(([k, d]) => [k, { ...d, code: k.endsWith("t9") ? "agrees" : "gives-opinion" }]));
    expect(uncertainSample(one, 2, skewed, new Set(), 1, "per-code").units.map((u) => u.turn.id)).toEqual(["t0", "t9"]);
    expect(uncertainSample(one, 2, skewed, new Set(), 1, "least-sure").units.map((u) => u.turn.id)).toEqual(["t0", "t1"]);
  });

  it("labels each picked turn's stratum with how sure the coder was (higher is surer), not as its doubt", () => {
    for (const u of uncertainSample(units, 6, doubt, new Set(), 1).units)
      expect(u.stratum).toBe(`sure=${doubt.get(`${u.session.id}\u0000${u.turn.id}`)!.sure}`);
  });

  it("breaks ties in a seeded order: the same seed gives the same turns, another seed others", () => {
    const flat = new Map([...doubt].map(([k]) => [k, { sure: 0.5, code: "agrees" }]));
    const pick = (seed: number) => uncertainSample(units, 6, flat, new Set(), seed).units.map((u) => `${u.session.id}\u0000${u.turn.id}`);
    expect(pick(1)).toEqual(pick(1));
    expect(pick(2)).not.toEqual(pick(1));
    // Still spread: two per session.
    expect(new Set(pick(2).map((k) => k.split("\u0000")[0])).size).toBe(3);
  });
});

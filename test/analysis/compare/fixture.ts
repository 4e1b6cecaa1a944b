// Small hand-built studies for the compare/stats tests: every number in them can be checked by hand.
import type { Participant, Session, Turn } from "../../../src/transcript/schema.js";
import type { CodeRecord } from "../../../src/coding/records.js";
import { turnId } from "../../../src/transcript/ids.js";

export interface TurnSpec {
  who: string;
  code?: string;
  text?: string;
  start?: number;
  end?: number;
  type?: Turn["type"];
  to?: string[];
}

/** Participant ids are lower-cased names; roles default to "member", kind "ai" for names starting "AI". */
export function makeSession(
  id: string,
  condition: string | undefined,
  run: string | undefined,
  turns: TurnSpec[],
  extra: { participants?: Partial<Participant>[]; roles?: Record<string, string> } = {},
): { session: Session; codes: (string | undefined)[] } {
  const names = [...new Set([...(extra.participants ?? []).map((p) => p.name!), ...turns.map((t) => t.who)])];
  const participants: Participant[] = names.map((name) => {
    const given = (extra.participants ?? []).find((p) => p.name === name) ?? {};
    return {
      id: name.toLowerCase(),
      name,
      kind: name.startsWith("AI") ? "ai" : "human",
      role: extra.roles?.[name] ?? "member",
      ...given,
    } as Participant;
  });
  const session: Session = {
    schemaVersion: 1,
    id,
    metadata: { ...(condition !== undefined ? { condition } : {}), ...(run !== undefined ? { run } : {}) },
    participants,
    turns: turns.map((t, i) => ({
      id: turnId(i),
      index: i,
      speaker: t.who.toLowerCase(),
      text: t.text ?? "word ".repeat(i + 1).trim(),
      type: t.type ?? "message",
      ...(t.start !== undefined ? { start: t.start } : {}),
      ...(t.end !== undefined ? { end: t.end } : {}),
      ...(t.to ? { addressees: t.to } : {}),
    })),
  };
  return { session, codes: turns.map((t) => t.code) };
}

/** Code records for a session (one per coded turn). */
export function recordsFor(session: Session, codes: (string | undefined)[], coder = "rules", codebook = "bales-ipa"): CodeRecord[] {
  return codes.flatMap((code, i) =>
    code === undefined
      ? []
      : [
          {
            session: session.id,
            turn: session.turns[i].id,
            codebook,
            codebookVersion: "1.0.0",
            coder,
            codes: [code],
            provenance: {},
            createdAt: "2026-01-01T00:00:00.000Z",
          },
        ],
  );
}

/** A session whose speakers produce the given numbers of each code, speaker by speaker. */
export function fromCounts(
  id: string,
  condition: string,
  run: string | undefined,
  counts: Record<string, Record<string, number>>,
): { session: Session; codes: (string | undefined)[] } {
  const turns: TurnSpec[] = [];
  for (const [who, byCode] of Object.entries(counts)) {
    for (const [code, n] of Object.entries(byCode)) for (let i = 0; i < n; i++) turns.push({ who, code });
  }
  // Every listed speaker is a participant, even with no turns.
  return makeSession(id, condition, run, turns, { participants: Object.keys(counts).map((name) => ({ name })) });
}

/** The within-subject study whose reference values were computed with SciPy (see compare.test.ts). */
export function pairedStudy(): { sessions: Session[]; records: CodeRecord[] } {
  const ai = { Alice: [3, 5, 4, 6, 2], Bob: [2, 4, 7, 3, 5] };
  const control = { Alice: [1, 2, 2, 3, 1], Bob: [1, 1, 2, 2, 4] };
  const aiAgrees = { Alice: [1, 1, 1, 1, 1], Bob: [0, 0, 0, 0, 0] };
  const controlAgrees = { Alice: [1, 0, 1, 0, 1], Bob: [1, 1, 1, 1, 1] };
  const sessions: Session[] = [];
  const records: CodeRecord[] = [];
  for (let r = 0; r < 5; r++) {
    for (const [condition, opinion, agrees] of [
      ["ai", ai, aiAgrees],
      ["control", control, controlAgrees],
    ] as const) {
      const built = fromCounts(`${condition}-r${r + 1}`, condition, `r${r + 1}`, {
        Alice: { "gives-opinion": opinion.Alice[r], agrees: agrees.Alice[r] },
        Bob: { "gives-opinion": opinion.Bob[r], agrees: agrees.Bob[r] },
      });
      sessions.push(built.session);
      records.push(...recordsFor(built.session, built.codes));
    }
  }
  return { sessions, records };
}

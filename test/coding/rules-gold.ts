import { readFileSync } from "node:fs";
import Papa from "papaparse";
import type { Session } from "../../src/transcript/schema.js";

/**
 * The hand-coded Bales evaluation set (fixtures/coding/bales-gold.csv): realistic turns of
 * human-AI team conversations, coded by Bales' definitions before the rules were tuned.
 * Whole conversations are either "tune" (used to develop the rules) or "heldout" (never tuned on).
 */
export interface GoldTurn {
  conversation: string;
  split: "tune" | "heldout";
  turn: number;
  speaker: string;
  kind: "human" | "ai" | "system";
  code: string;
  text: string;
}

export const GOLD_PATH = new URL("../../fixtures/coding/bales-gold.csv", import.meta.url);

export function readGold(): GoldTurn[] {
  const parsed = Papa.parse<Record<string, string>>(readFileSync(GOLD_PATH, "utf8"), { header: true, skipEmptyLines: true });
  if (parsed.errors.length > 0) throw new Error(`bales-gold.csv: ${parsed.errors[0]!.message} (row ${parsed.errors[0]!.row})`);
  return parsed.data.map((r) => ({
    conversation: r.conversation!,
    split: r.split as GoldTurn["split"],
    turn: Number(r.turn),
    speaker: r.speaker!,
    kind: r.kind as GoldTurn["kind"],
    code: r.code!,
    text: r.text!,
  }));
}

/** One Session per conversation, so the coder sees each turn in its real context. */
export function goldSessions(rows: GoldTurn[]): { session: Session; gold: GoldTurn[] }[] {
  const byConversation = new Map<string, GoldTurn[]>();
  for (const r of rows) byConversation.set(r.conversation, [...(byConversation.get(r.conversation) ?? []), r]);
  return [...byConversation.entries()].map(([id, turns]) => {
    const speakers = [...new Map(turns.map((t) => [t.speaker, t.kind])).entries()];
    const session: Session = {
      schemaVersion: 1,
      id,
      metadata: {},
      participants: speakers.map(([name, kind]) => ({ id: name.toLowerCase(), name, kind })),
      turns: turns.map((t, i) => ({ id: `t${String(i).padStart(4, "0")}`, index: i, speaker: t.speaker.toLowerCase(), text: t.text, type: "message" })),
    };
    return { session, gold: turns };
  });
}

/** Cohen's kappa for two nominal codings of the same items (Cohen 1960). */
export function kappa(a: readonly string[], b: readonly string[]): number {
  const n = a.length;
  const labels = [...new Set([...a, ...b])];
  const observed = a.filter((x, i) => x === b[i]).length / n;
  const expected = labels.reduce((sum, c) => sum + (a.filter((x) => x === c).length / n) * (b.filter((x) => x === c).length / n), 0);
  return (observed - expected) / (1 - expected);
}

import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import Papa from "papaparse";
import { turnTerms } from "../../src/coding/learned/features.js";
import type { GroupedExample } from "../../src/coding/learned/validate.js";
import type { Session } from "../../src/transcript/schema.js";

export const gold = fileURLToPath(new URL("../../fixtures/coding/bales-gold.csv", import.meta.url));
export type GoldRow = { conversation: string; split: string; speaker: string; kind: string; code: string; text: string };

/** The turns of one split of fixtures/coding/bales-gold.csv ("tune" or "heldout") as grouped training examples. */
export async function goldExamples(split: string): Promise<GroupedExample[]> {
  const rows = Papa.parse<GoldRow>(await readFile(gold, "utf8"), { header: true, skipEmptyLines: true }).data;
  const sessions = new Map<string, { session: Session; codes: string[] }>();
  for (const r of rows.filter((row) => row.split === split)) {
    const entry = sessions.get(r.conversation) ?? {
      session: { schemaVersion: 1, id: r.conversation, metadata: {}, participants: [], turns: [] } as Session,
      codes: [],
    };
    if (!entry.session.participants.some((p) => p.id === r.speaker))
      entry.session.participants.push({ id: r.speaker, name: r.speaker, kind: r.kind as "human" });
    entry.session.turns.push({ id: `t${entry.session.turns.length}`, index: entry.session.turns.length, speaker: r.speaker, text: r.text, type: "message" });
    entry.codes.push(r.code);
    sessions.set(r.conversation, entry);
  }
  return [...sessions.values()].flatMap((e) => e.session.turns.map((_, i) => ({ group: e.session.id, terms: turnTerms(e.session, i), codes: [e.codes[i]] })));
}

import { artifacts } from "../study/artifacts.js";
import type { Session } from "../transcript/schema.js";
import { checkCodeCurrency } from "./currency.js";
import { staleCodeSchema, type CodeRecord, type StaleCode } from "./records.js";
import { listCoders, readCodes, readRecords } from "./store.js";

/**
 * Every code of a study that applies to no turn, for `colloquy sessions --stale` and the
 * summaries of `import` and `code`: codes a re-import moved to a stale list, and codes still in a
 * codes file whose turn has changed since (withheld from every analysis by coding/currency.ts).
 */
export interface StaleCodeView {
  codebook: string;
  coder: string;
  session: string;
  turn: string;
  reason: StaleCode["reason"];
  /** "stale list": moved there by a re-import; "withheld": its turn changed under it. */
  where: "stale list" | "withheld";
  record: CodeRecord;
  /** The words it was attached to, when known. */
  text?: string;
  via?: string;
}

export async function readStaleCodes(study: string, codebook: string, coder: string): Promise<StaleCode[]> {
  return readRecords(artifacts.staleCodes.path(study, codebook, coder), staleCodeSchema, "a stale-code entry");
}

/** Stale codes of every codebook and coder (a stale list sits beside the codes file it came from). */
export async function studyStaleCodes(study: string, sessions: readonly Session[]): Promise<StaleCodeView[]> {
  const out: StaleCodeView[] = [];
  for (const [codebook, coders] of Object.entries(await listCoders(study))) {
    for (const coder of coders) {
      for (const s of await readStaleCodes(study, codebook, coder)) {
        out.push({
          codebook,
          coder,
          session: s.attachedTo.session,
          turn: s.attachedTo.turn,
          reason: s.reason,
          where: "stale list",
          record: s.record,
          text: s.attachedTo.text,
          via: s.via,
        });
      }
      const { withheld } = checkCodeCurrency(await readCodes(study, codebook, coder), sessions);
      for (const w of withheld)
        out.push({ codebook, coder, session: w.record.session, turn: w.record.turn, reason: w.reason, where: "withheld", record: w.record });
    }
  }
  return out;
}

/** The line `sessions`, `import` and `code` print when codes apply to no turn any more. */
export function staleHint(dir: string, count: number): string {
  return `${count} code(s) apply to no turn any more (their turn was edited or removed); they are kept, not used. List them: colloquy sessions ${dir} --stale`;
}

import { cutRecords, type CodeCut, type CodeRecord, type CodeValue } from "../coding/records.js";
import { checkCodeCurrency } from "../coding/currency.js";
import { readCodes } from "../coding/store.js";
import type { Session } from "../transcript/schema.js";
import { loadSessions } from "./study.js";

/**
 * Where library functions get a study's sessions and code records. A function given none reads
 * the files; the stages pass their StudyContext, which reads each file once per pipeline run
 * (a 100,000-turn study's code files take seconds to parse, and five stages need them).
 * Readers return shared arrays: callers must not mutate them. `codes` returns only records that
 * still describe their turn (coding/currency.ts): a code is never applied to words it was not given.
 */
export interface StudyReader {
  sessions(): Promise<Session[]>;
  codes(codebook: string, coder: string): Promise<CodeRecord[]>;
  /**
   * `codes` cut to what the analyses read of each record (CodeValue). A reader that shares what
   * it read across stages (the pipeline's context) shares these, not the whole records.
   */
  codeValues(codebook: string, coder: string): Promise<CodeValue[]>;
  /** `codeValues` with the summary of the whole records (CodeCut): what the dashboard's build reads of a coder. */
  codeCut(codebook: string, coder: string): Promise<CodeCut>;
}

/** Reads the files on each call (what a one-off library call wants); sessions once per reader. */
export function diskReader(study: string): StudyReader {
  let sessions: Promise<Session[]> | undefined;
  const reader: StudyReader = {
    sessions: () => (sessions ??= loadSessions(study)),
    codes: async (codebook, coder) => currentCodes(await readCodes(study, codebook, coder), await reader.sessions()),
    codeValues: async (codebook, coder) => (await reader.codeCut(codebook, coder)).values,
    codeCut: async (codebook, coder) => cutRecords(await reader.codes(codebook, coder)),
  };
  return reader;
}

/** The records that apply to the sessions as they are now. */
export function currentCodes(records: readonly CodeRecord[], sessions: readonly Session[]): CodeRecord[] {
  return checkCodeCurrency(records, sessions).current;
}

/**
 * `lists` without the records that no longer describe their turn, as `currentCodes` gives them,
 * checked a session at a time: each session with records to check (those carrying a fingerprint)
 * is given by `load`, once for every list, and let go after. A caller that holds the sessions'
 * heads only (their turns not read) then holds one session's turns and fingerprints during the
 * check, not the study's (issue 40). File order is kept; `lists` are returned as they are when
 * every record is current.
 */
export async function currentBySession(
  lists: readonly CodeRecord[][],
  sessions: readonly Session[],
  load: (session: Session) => Session | Promise<Session>,
): Promise<CodeRecord[][]> {
  const index = new Map(sessions.map((s, i) => [s.id, i]));
  // Per session (by index), its records of each list that carry a fingerprint (the only ones checked).
  const checked = new Map<number, CodeRecord[][]>();
  lists.forEach((records, k) => {
    for (const record of records) {
      const i = record.fingerprint === undefined ? undefined : index.get(record.session);
      if (i === undefined) continue;
      let mine = checked.get(i);
      if (!mine) checked.set(i, (mine = lists.map(() => [])));
      mine[k].push(record);
    }
  });
  const withheld = new Set<CodeRecord>();
  for (const i of [...checked.keys()].sort((a, b) => a - b)) {
    const session = await load(sessions[i]);
    for (const mine of checked.get(i)!) for (const { record } of checkCodeCurrency(mine, [session]).withheld) withheld.add(record);
  }
  return withheld.size === 0 ? [...lists] : lists.map((records) => records.filter((r) => !withheld.has(r)));
}

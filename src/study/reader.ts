import type { CodeRecord, CodeValue } from "../coding/records.js";
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
   * it read across stages (the pipeline's context) shares these, not the whole records; one
   * without gives its records (valuesOf).
   */
  codeValues?(codebook: string, coder: string): Promise<CodeValue[]>;
}

/** One coder's current records of a codebook as the analyses read them: the reader's code values, else its records. */
export function valuesOf(reader: StudyReader, codebook: string, coder: string): Promise<readonly CodeValue[]> {
  return reader.codeValues ? reader.codeValues(codebook, coder) : reader.codes(codebook, coder);
}

/** Reads the files on each call (what a one-off library call wants); sessions once per reader. */
export function diskReader(study: string): StudyReader {
  let sessions: Promise<Session[]> | undefined;
  const reader: StudyReader = {
    sessions: () => (sessions ??= loadSessions(study)),
    codes: async (codebook, coder) => currentCodes(await readCodes(study, codebook, coder), await reader.sessions()),
  };
  return reader;
}

/** The records that apply to the sessions as they are now. */
export function currentCodes(records: readonly CodeRecord[], sessions: readonly Session[]): CodeRecord[] {
  return checkCodeCurrency(records, sessions).current;
}

import type { CodeRecord } from "../coding/records.js";
import { readCodes } from "../coding/store.js";
import type { Session } from "../transcript/schema.js";
import { loadSessions } from "./study.js";

/**
 * Where library functions get a study's sessions and code records. A function given none reads
 * the files; the stages pass their StudyContext, which reads each file once per pipeline run
 * (a 100,000-turn study's code files take seconds to parse, and five stages need them).
 * Readers return shared arrays: callers must not mutate them.
 */
export interface StudyReader {
  sessions(): Promise<Session[]>;
  codes(codebook: string, coder: string): Promise<CodeRecord[]>;
}

/** Reads the files every time (what a one-off library call wants). */
export function diskReader(study: string): StudyReader {
  return { sessions: () => loadSessions(study), codes: (codebook, coder) => readCodes(study, codebook, coder) };
}

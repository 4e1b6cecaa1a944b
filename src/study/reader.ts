import { codeValue, cutRecords, type CodeCut, type CodeRecord, type CodeValue } from "../coding/records.js";
import { checkCodeCurrency } from "../coding/currency.js";
import { readCodes } from "../coding/store.js";
import type { Session } from "../transcript/schema.js";
import { loadSessions } from "./study.js";
import { openMemo, sessionHash, type Memo } from "./memo.js";
import { holdsStudyLock } from "./lock.js";
import { sha256 } from "../util/hash.js";

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
  /**
   * `codeValues` with the summary of the whole records (CodeCut): what the dashboard's build reads
   * of a coder. With `keep: false`, a cut the reader does not share yet is made for this caller alone.
   */
  codeCut(codebook: string, coder: string, options?: { keep?: boolean }): Promise<CodeCut>;
}

/** Reads the files on each call (what a one-off library call wants); sessions once per reader. */
export function diskReader(study: string): StudyReader {
  let sessions: Promise<Session[]> | undefined;
  const reader: StudyReader = {
    sessions: () => (sessions ??= loadSessions(study)),
    codes: async (codebook, coder) => currentCodes(await readCodes(study, codebook, coder), await reader.sessions()),
    codeValues: async (codebook, coder) => (await reader.codes(codebook, coder)).map(codeValue),
    codeCut: async (codebook, coder) => cutRecords(await reader.codes(codebook, coder)),
  };
  return reader;
}

/** The records that apply to the sessions as they are now. */
export function currentCodes(records: readonly CodeRecord[], sessions: readonly Session[]): CodeRecord[] {
  return checkCodeCurrency(records, sessions).current;
}

/**
 * `records` without those that no longer describe their turn, as `currentCodes` gives them,
 * checked a session at a time: each session with records to check (those carrying a fingerprint)
 * is given by `load` and let go after, so a caller holding the sessions' heads only (their turns
 * not read) holds one session's turns during the check, not the study's (issue 40). Each session's
 * verdict (which of its records are withheld) is kept in `verdicts` under the session's content
 * hash and its checked records' turns and fingerprints: a later run reads only the sessions whose
 * file or records changed. File order is kept; `records` is returned as it is when all are current.
 */
export async function currentBySession(
  records: CodeRecord[],
  sessions: readonly Session[],
  load: (session: Session) => Session | Promise<Session>,
  verdicts: Memo<number[]>,
): Promise<CodeRecord[]> {
  const index = new Map(sessions.map((s, i) => [s.id, i]));
  // Per session (by index), its records that carry a fingerprint (the only ones checked).
  const checked = new Map<number, CodeRecord[]>();
  for (const record of records) {
    const i = record.fingerprint === undefined ? undefined : index.get(record.session);
    if (i === undefined) continue;
    let mine = checked.get(i);
    if (!mine) checked.set(i, (mine = []));
    mine.push(record);
  }
  const withheld = new Set<CodeRecord>();
  for (const i of [...checked.keys()].sort((a, b) => a - b)) {
    const mine = checked.get(i)!;
    const verdict = await verdicts.getAsync(sessions[i].id, `${sessionHash(sessions[i])} ${checkedDigest(mine)}`, async () => {
      const out = new Set(checkCodeCurrency(mine, [await load(sessions[i])]).withheld.map((w) => w.record));
      return mine.flatMap((record, k) => (out.has(record) ? [k] : []));
    });
    for (const k of verdict) withheld.add(mine[k]);
  }
  await verdicts.save();
  return withheld.size === 0 ? records : records.filter((r) => !withheld.has(r));
}

/**
 * The memo of one coder's verdicts (currentBySession). Only a process holding the study's writer
 * lock stores them: a reader (export, a dry run, a read-only study) uses the verdicts kept and
 * writes nothing, since it may run beside a writer, whose entries its save would delete.
 */
export async function verdictsOf(study: string, codebook: string, coder: string): Promise<Memo<number[]>> {
  const memo = await openMemo<number[]>(study, ["code-currency", codebook, coder], {});
  // Asked when saving: a memo opened under the lock may be saved after it was released.
  return { ...memo, save: () => (holdsStudyLock(study) ? memo.save() : Promise.resolve()) };
}

/** Digest of what a session's check reads of its records: each one's turn and fingerprint, in order (length-prefixed). */
function checkedDigest(records: readonly CodeRecord[]): string {
  let text = "";
  for (const r of records) text += `${r.turn.length}:${r.turn}${r.fingerprint!.length}:${r.fingerprint}`;
  return sha256(text);
}

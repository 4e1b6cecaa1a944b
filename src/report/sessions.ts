import { cutRecords, type CodeCut } from "../coding/records.js";
import { readCodes } from "../coding/store.js";
import { rememberSessionHash, sessionHash } from "../study/memo.js";
import { currentBySession, verdictsOf, type StudyReader } from "../study/reader.js";
import { compareSessions, listSessionIds, sessionPath } from "../study/study.js";
import { openSessionFiles, readSessionAgain, sameSessionFile, withTurns } from "../study/validated-sessions.js";
import type { Session } from "../transcript/schema.js";

/**
 * Where the build gets the study's sessions and code records. It holds every session's head (the
 * session without its turns: id, title, participants, metadata) in study order for the whole build,
 * and asks for a session whole only for the step that needs its turns (its parts when the memo has
 * none, its chunk), letting it go after that step (issue 40: the build's memory does not grow with
 * the study's turns). The study-level views are merged from the sessions' parts, which need only
 * the heads.
 */
export interface BuildSessions {
  /** Every session without its turns (reading `turns` throws), in study order (condition, run, id); `sessionHash` works on each. */
  heads: Session[];
  /** Session `index` of `heads` whole, for one step. */
  load(index: number): Promise<Session>;
  /**
   * One codebook's records by each of `coders` (in that order, each in file order), those that
   * still describe their turn, each coder's cut to what the build reads (CodeCut).
   */
  codes(codebook: string, coders: readonly string[]): Promise<CodeCut[]>;
}

/**
 * The sessions and records a caller holds already (the pipeline's context, whose earlier stages
 * loaded them): heads are the sessions themselves.
 */
export async function heldSessions(reader: Pick<StudyReader, "sessions" | "codeCut">): Promise<BuildSessions> {
  const sessions = await reader.sessions();
  return {
    heads: sessions,
    // A session whose turns were never read is read again for the step, not kept on the shared one.
    load: async (index) => withTurns(sessions[index]),
    async codes(codebook, coders) {
      const cuts: CodeCut[] = [];
      // Those earlier stages shared; the others are read for this codebook and let go after it.
      for (const coder of coders) cuts.push(await reader.codeCut(codebook, coder, { keep: false }));
      return cuts;
    },
  };
}

/** A session's head: its own properties but `turns`, copied by descriptor (a session read lazily keeps its turns unread). */
function headOf(session: Session): Session {
  const { turns: _turns, ...rest } = Object.getOwnPropertyDescriptors(session);
  const head = Object.defineProperties({}, rest) as Session;
  // The getter keeps the id alone: the session it was made from may hold its turns.
  const id = session.id;
  Object.defineProperty(head, "turns", {
    enumerable: false,
    get() {
      throw new Error(`session ${id}: the build holds its head only; load it whole for its turns (src/report/sessions.ts)`);
    },
  });
  rememberSessionHash(head, sessionHash(session));
  sameSessionFile(head, session);
  return head;
}

/**
 * The study's sessions read from its files, one whole at a time: each step that needs a session's
 * turns reads its file again (readSessionAgain: a validated session's file is parsed, not
 * validated again, and must not have changed since the heads were read). Code records are read from the codes files and checked against
 * their turns a session at a time, as `currentCodes` checks them against the whole study.
 */
export async function diskSessions(study: string): Promise<BuildSessions> {
  const ids = await listSessionIds(study);
  const files = await openSessionFiles(study);
  const heads: Session[] = [];
  for (const id of ids) heads.push(headOf(await files.read(sessionPath(study, id), id)));
  await files.save(ids);
  heads.sort(compareSessions);
  // Checked to be the file the head was read from: a file edited since stops the build.
  const load = async (index: number) => readSessionAgain(heads[index]);
  return {
    heads,
    load,
    async codes(codebook, coders) {
      const cuts: CodeCut[] = [];
      for (const coder of coders)
        cuts.push(
          cutRecords(await currentBySession(await readCodes(study, codebook, coder), heads, readSessionAgain, await verdictsOf(study, codebook, coder))),
        );
      return cuts;
    },
  };
}

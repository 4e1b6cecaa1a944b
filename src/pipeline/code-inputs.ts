import { join, relative } from "node:path";
import { readCodes } from "../coding/store.js";
import type { CodeRecord } from "../coding/records.js";
import type { CodebookPlan } from "../study/config.js";
import { artifacts } from "../study/artifacts.js";
import { currentCodes } from "../study/reader.js";
import { loadSessions } from "../study/study.js";
import type { StudyContext } from "../stages/context.js";
import type { Session } from "../transcript/schema.js";
import { fingerprint } from "./fingerprint.js";
import type { PipelineState } from "./state.js";

/**
 * The code stage, per session (issue 11). Coding is per turn, and a turn already coded is never
 * coded again; what made adding one session to a large study slow was everything around that:
 * loading every session to find the turns without codes. So the pipeline remembers, when the
 * code stage last finished with every turn coded, each session file's hash and one fingerprint
 * of everything else the stage depends on (the codes it left, codebooks, coders, model). When
 * everything else is unchanged, only the sessions that are new or whose file changed can have
 * turns without a current code, so only they are loaded and coded: the same records a full run
 * would add, for the price of the sessions that changed.
 */

/** What the code stage's outputs depend on, split into the sessions and everything else. */
export interface CodeInputs {
  /** Session file (relative to the study) -> content hash. */
  sessions: Record<string, string>;
  /** Fingerprint of everything else (codes, codebook plans and definitions, coder versions, model). */
  rest: string;
}

export function codeInputs(sessions: Record<string, string>, rest: Record<string, unknown>): CodeInputs {
  return { sessions, rest: fingerprint(rest) };
}

/**
 * Whether the work can be limited to some sessions: not for the learned coder (it trains on
 * every session's human codes) nor for an LLM shown worked examples (picked from every session),
 * whose codes of a new turn depend on more than that turn's session.
 */
export function perSessionCoding(plans: readonly CodebookPlan[]): boolean {
  return plans.every((p) => p.coders.every((coder) => coder === "rules" || (coder === "llm" && !p.examples?.length)));
}

/**
 * Ids of the sessions to code when only sessions changed since the code stage last finished
 * with every turn coded; undefined when anything else changed (or nothing is remembered), and
 * the whole study must be looked at. Removed sessions need nothing: their codes stay, as in a
 * full run.
 */
export function changedSessions(study: StudyContext, state: PipelineState, now: CodeInputs): string[] | undefined {
  const before = state.codeInputs;
  if (!before || before.rest !== now.rest) return undefined;
  const ids: string[] = [];
  for (const [path, hash] of Object.entries(now.sessions)) {
    if (before.sessions[path] === hash) continue;
    const id = artifacts.session.match(relative(study.paths.sessions, join(study.paths.root, path)))?.[0];
    // A file in sessions/ that is not a session: the full run decides what it means.
    if (id === undefined) return undefined;
    ids.push(id);
  }
  return ids.sort();
}

/**
 * The study seen as only some of its sessions: `sessions()` loads just those files, and
 * `codes()` reads the records and checks those of these sessions against them (records of other
 * sessions pass through unchecked, so callers must only look at these sessions' turns). Coders,
 * settings and the model are the study's.
 */
export function sessionsOnly(study: StudyContext, ids: readonly string[]): StudyContext {
  let sessions: Promise<Session[]> | undefined;
  const codes = new Map<string, Promise<CodeRecord[]>>();
  const part: StudyContext = {
    ...study,
    sessions: () => (sessions ??= loadSessions(study.dir, ids).catch((error) => ((sessions = undefined), Promise.reject(error)))),
    codes(codebook, coder) {
      const key = `${codebook}\u0000${coder}`;
      let records = codes.get(key);
      if (!records) {
        records = Promise.all([readCodes(study.dir, codebook, coder), part.sessions()]).then(([all, loaded]) => currentCodes(all, loaded));
        codes.set(key, records);
      }
      return records;
    },
    changed(what) {
      if (what === "sessions") sessions = undefined;
      codes.clear();
      study.changed(what);
    },
  };
  return part;
}

import { appendJsonl, type JsonlRepair } from "../util/fs.js";
import { artifacts } from "../study/artifacts.js";
import { sessionContentHash, sessionFingerprints } from "../transcript/fingerprint.js";
import type { Session } from "../transcript/schema.js";
import { staleCodeSchema, type CodeRecord, type StaleCode } from "./records.js";
import { listCoders, readCodeHistory, replaceCodes } from "./store.js";
import { onFirstUse } from "../util/on-first-use.js";

/** The diff package, loaded on first use (30 ms to import): only a re-import of an edited transcript aligns codes with it. */
const diffLibrary = onFirstUse<typeof import("diff")>("diff");

/**
 * Codes follow their turn when a transcript is edited and imported again. Turn ids are positions,
 * so a line added at the top shifts every id; the old and new turn sequences are aligned by
 * content (a diff of fingerprints, so insertions and deletions keep the rest in place), each code
 * moves to its turn's new id, and a code whose turn was changed or removed goes to the coder's
 * stale list with the words it was attached to. It is never applied to another turn, and no
 * record is deleted: human codes stay on record, marked stale.
 */

/** How one turn of the old session fared in the new one. */
type TurnFate = { to: string } | { stale: StaleCode["reason"] };

/**
 * Old turn id -> new turn id, or why it has none. A diff keeps order; a turn moved elsewhere
 * (two lines swapped) shows as removed and added, so afterwards a removed turn whose words occur
 * exactly once among the added turns, and once among the removed, is matched to it.
 */
export function alignTurns(before: Session, after: Session): Map<string, TurnFate> {
  const fingerprints = (s: Session) => s.turns.map((t) => sessionFingerprints(s).get(t.id)!);
  const [oldPrints, newPrints] = [fingerprints(before), fingerprints(after)];
  const changes = diffLibrary().diffArrays(oldPrints, newPrints);
  const fates = new Map<string, TurnFate>();
  const removed: number[] = [];
  const added: number[] = [];
  let i = 0;
  let j = 0;
  changes.forEach((change, k) => {
    if (change.added) {
      for (let n = 0; n < change.count; n++) added.push(j + n);
      j += change.count;
    } else if (change.removed) {
      // A removal next to an addition is an edit in place; on its own, the turns are gone.
      const edited = Boolean(changes[k + 1]?.added || changes[k - 1]?.added);
      for (let n = 0; n < change.count; n++) {
        fates.set(before.turns[i + n].id, { stale: edited ? "turn-changed" : "turn-removed" });
        removed.push(i + n);
      }
      i += change.count;
    } else {
      for (let n = 0; n < change.count; n++) fates.set(before.turns[i + n].id, { to: after.turns[j + n].id });
      i += change.count;
      j += change.count;
    }
  });
  const once = (indexes: number[], prints: string[]) => {
    const seen = new Map<string, number | null>();
    for (const x of indexes) seen.set(prints[x], seen.has(prints[x]) ? null : x);
    return seen;
  };
  const removedOnce = once(removed, oldPrints);
  const addedOnce = once(added, newPrints);
  for (const [print, x] of removedOnce) {
    const y = addedOnce.get(print);
    if (x !== null && y !== undefined && y !== null) fates.set(before.turns[x].id, { to: after.turns[y].id });
  }
  return fates;
}

export interface Reimport {
  before: Session;
  after: Session;
}

export interface RealignSummary {
  /** Records whose turn id changed. */
  moved: number;
  /** Records moved to a stale list (of which `staleHuman` by human coders). */
  stale: number;
  staleHuman: number;
  /** Stale lists written to, relative to the study. */
  staleFiles: string[];
  /** Torn last lines found on the way, moved to .torn files (never dropped with a rewrite). */
  repairs: JsonlRepair[];
}

/** True when re-importing `after` over `before` changes any turn's words, speaker or position. */
export function turnsChanged({ before, after }: Reimport): boolean {
  if (before.turns.length !== after.turns.length) return true;
  const a = sessionFingerprints(before);
  const b = sessionFingerprints(after);
  return before.turns.some((t, i) => t.id !== after.turns[i].id || a.get(t.id) !== b.get(after.turns[i].id));
}

/**
 * Move the codes of re-imported sessions to their turns' new ids, in every codebook and coder.
 * Run it before the new sessions are saved: if the process dies in between (or saving fails), a
 * second import finds each record either still matching the old session (moved then) or marked
 * as already moved to this version of the session (`provenance.alignedTo`, left alone), so
 * running the import again finishes the job.
 * `keep` names records this function must not touch (codes the import itself re-creates).
 */
export async function realignCodes(
  study: string,
  reimports: readonly Reimport[],
  via: string,
  keep: (record: CodeRecord) => boolean = () => false,
): Promise<RealignSummary> {
  const summary: RealignSummary = { moved: 0, stale: 0, staleHuman: 0, staleFiles: [], repairs: [] };
  const changed = reimports.filter(turnsChanged);
  if (changed.length === 0) return summary;
  const plans = new Map(changed.map((r) => [r.before.id, { ...r, fates: alignTurns(r.before, r.after), afterHash: sessionContentHash(r.after) }]));
  const markedAt = new Date().toISOString();
  for (const [codebook, coders] of Object.entries(await listCoders(study))) {
    for (const coder of coders) {
      const records = await readCodeHistory(study, codebook, coder);
      const kept: CodeRecord[] = [];
      const stale: StaleCode[] = [];
      let moved = 0;
      for (const record of records) {
        const plan = plans.get(record.session);
        const outcome = plan && !keep(record) ? follow(record, plan) : { record };
        if ("record" in outcome) {
          if (outcome.record !== record) moved++;
          kept.push(outcome.record);
        } else {
          stale.push({ ...outcome.stale, via, markedAt });
        }
      }
      if (moved === 0 && stale.length === 0) continue;
      // The stale list first: a crash between the two writes leaves a code listed twice, never lost.
      const repairs: (JsonlRepair | undefined)[] = [];
      if (stale.length > 0) {
        repairs.push(
          await appendJsonl(
            artifacts.staleCodes.path(study, codebook, coder),
            stale.map((s) => staleCodeSchema.parse(s)),
          ),
        );
        summary.staleFiles.push(artifacts.staleCodes.relative(codebook, coder));
      }
      repairs.push(await replaceCodes(study, codebook, coder, kept));
      summary.repairs.push(...repairs.filter((r): r is JsonlRepair => r !== undefined));
      summary.moved += moved;
      summary.stale += stale.length;
      if (coder.startsWith("human:")) summary.staleHuman += stale.length;
    }
  }
  return summary;
}

type Followed = { record: CodeRecord } | { stale: Omit<StaleCode, "via" | "markedAt"> };

/** Where one record goes when its session is re-imported. */
function follow(record: CodeRecord, plan: Reimport & { fates: Map<string, TurnFate>; afterHash: string }): Followed {
  // Already moved to this very version of the session by an earlier, interrupted import: where a
  // speaker said the same words twice ("Yes."), its new id can match the old session too, and
  // moving it again would put it on the other "Yes.".
  if (record.provenance.alignedTo === plan.afterHash) return { record };
  const oldFingerprint = sessionFingerprints(plan.before).get(record.turn);
  const newFingerprint = sessionFingerprints(plan.after).get(record.turn);
  // What the coder was given: the stored fingerprint, or (older records) the turn it points at.
  const given = record.fingerprint ?? oldFingerprint;
  if (given !== undefined && given === oldFingerprint) {
    const fate = plan.fates.get(record.turn)!;
    if ("to" in fate) {
      if (fate.to === record.turn && record.fingerprint === given) return { record };
      return { record: { ...record, turn: fate.to, fingerprint: given, provenance: { ...record.provenance, alignedTo: plan.afterHash } } };
    }
    const turn = plan.before.turns.find((t) => t.id === record.turn)!;
    return { stale: { record, reason: fate.stale, attachedTo: { session: record.session, turn: record.turn, speaker: turn.speaker, text: turn.text } } };
  }
  // Already on its turn in the new session (an earlier, interrupted import moved it).
  if (given !== undefined && given === newFingerprint) return { record };
  // Points at nothing in either version and cannot be checked: leave it as it was.
  if (given === undefined) return { record };
  return { stale: { record, reason: "turn-changed", attachedTo: { session: record.session, turn: record.turn } } };
}

import { loadStudyCodebook } from "../coding/codebook/load.js";
import { chooseCodebook } from "./codebook-choice.js";
import { ADJUDICATED_CODER, Desk, disagreements, type DeskItem, type DeskMode, type DeskStore, type NominalCodebook } from "../coding/annotate/desk.js";
import { startAnnotateServer, type AnnotateServer } from "../coding/annotate/server.js";
import { codeableTurns } from "../coding/sample.js";
import { humanCoderId } from "../coding/sheet.js";
import { appendCodes, readCodeHistory, replaceCodes } from "../coding/store.js";
import type { CodeRecord } from "../coding/records.js";
import { StudyLockedError, withStudyLock } from "../study/lock.js";
import { CliError, errorMessage } from "../util/errors.js";
import type { StageEffects, StudyContext } from "./context.js";
import { listedLine, listHumanCoders } from "./human-coders.js";
import { selectedContext, selectionOf, type SessionSelection } from "./selection.js";
import { sampledTurns, type SampleProblem } from "./sheet.js";

/**
 * The annotate stage: a coding page on 127.0.0.1 for one person (`human:<name>`), or for
 * adjudicating between coders (`human:adjudicated`). It serves until closed.
 *
 * The study's writer lock is taken per write, not for the serving time: a person may keep the
 * page open for hours, and holding the lock that long would stop every `colloquy code` or
 * `colloquy study` run meanwhile. Each answer takes the lock (waiting up to its usual time for a
 * running writer), appends one record through the code store and lets go; undo takes it to
 * rewrite the coder's file without that one record. The records carry the turn's fingerprint, so
 * a turn re-imported with other words while the page is open keeps its code as stale, never
 * applied to the new words.
 */

export interface AnnotateStageOptions {
  /** Codebook id or file (default: the one rule of ./codebook-choice.ts, nominal codebooks only). */
  codebook?: string;
  /** The person coding (`alice` or `human:alice`); with `adjudicate`, who decides. */
  coder: string;
  /** Adjudicate between these coders (two or more, `human:<name>` or other coder ids). */
  adjudicate?: readonly string[];
  /** Only the turns of a sample file (`colloquy sample`). */
  sample?: string;
  selection?: SessionSelection;
  host?: string;
  port?: number;
  /** Turns shown before and after the coded one (default 3 and 1). */
  window?: { before: number; after: number };
}

export interface RunningAnnotate extends AnnotateServer {
  codebook: string;
  /** The coder id answers are stored under. */
  writer: string;
  total: number;
  done: number;
  sampleProblems: SampleProblem[];
}

const COMMAND = "colloquy annotate";

/**
 * Commands that, while they hold the writer lock, write only their own coder's code file (never a
 * person's): an answer goes to `human:<name>`'s file, so it need not wait for them. Without this,
 * every answer waited 10 s and failed as "Not saved" for the whole of a long `colloquy code` run.
 */
const WRITES_ONLY_ITS_OWN_CODER = new Set(["colloquy code", "colloquy batch collect", "colloquy batch status", "colloquy batch cancel"]);

/**
 * The code store, each write holding the study's writer lock for just that write, or, while a
 * command that never touches people's code files holds it, writing beside it at once. The page
 * sends one answer at a time, and only this page writes this person's file.
 */
function lockedStore(context: StudyContext, effects: StageEffects): DeskStore {
  const locked = async (fn: () => Promise<void>) => {
    try {
      return await withStudyLock(context.dir, COMMAND, fn, { waitMs: 0 });
    } catch (error) {
      if (!(error instanceof StudyLockedError)) throw error;
      if (error.holder && WRITES_ONLY_ITS_OWN_CODER.has(error.holder.command)) return fn();
      return withStudyLock(context.dir, COMMAND, fn);
    }
  };
  return {
    append: (record) =>
      locked(async () => {
        await appendCodes(context.dir, [record]);
        context.changed("codes");
        // A person's first answer lists them under humanCoders (human-coders.ts). Every answer
        // checks again, so a listing lost to a concurrent edit comes back.
        for (const coder of await listHumanCoders(context.dir, [record.coder], effects)) effects.log(listedLine(coder));
      }),
    remove: (record) =>
      locked(async () => {
        const history = await readCodeHistory(context.dir, record.codebook, record.coder);
        const same = (r: CodeRecord) => r.session === record.session && r.turn === record.turn && r.createdAt === record.createdAt;
        await replaceCodes(
          context.dir,
          record.codebook,
          record.coder,
          history.filter((r) => !same(r)),
        );
        context.changed("codes");
      }),
  };
}

async function nominalCodebook(context: StudyContext, ref: string | undefined): Promise<NominalCodebook> {
  const codebook = await loadStudyCodebook(context.dir, await chooseCodebook(context, ref, { command: "annotate", nominal: true }));
  if (codebook.kind !== "nominal")
    throw new CliError(`codebook ${codebook.id} rates scales; the coding page codes categories (use \`colloquy sheet\` for scales)`);
  return codebook;
}

function coderIds(list: readonly string[]): string[] {
  return list.map((c) => (c.includes(":") || c === "rules" || c === "llm" || c === "learned" ? c : humanCoderId(c)));
}

export async function runAnnotate(context: StudyContext, options: AnnotateStageOptions, effects: StageEffects): Promise<RunningAnnotate> {
  const codebook = await nominalCodebook(context, options.codebook);
  let person: string;
  try {
    person = humanCoderId(options.coder);
  } catch (error) {
    throw new CliError(`--coder ${options.coder}: ${errorMessage(error)}`);
  }
  const sessions = await selectedContext(context, options.selection).sessions();
  const sampleProblems: SampleProblem[] = [];
  let items: DeskItem[] = options.sample
    ? await sampledTurns(options.sample, sessions, selectionOf(options.selection) !== undefined, sampleProblems)
    : codeableTurns(sessions).turns;

  let mode: DeskMode = { kind: "code", coder: person };
  const compared = new Map<string, CodeRecord[]>();
  if (options.adjudicate) {
    const coders = coderIds(options.adjudicate);
    if (coders.length < 2 || new Set(coders).size !== coders.length)
      throw new CliError(`--adjudicate ${options.adjudicate.join(",")}: name two or more different coders`);
    const known = (await context.coders())[codebook.id] ?? [];
    for (const coder of coders) {
      if (!known.includes(coder))
        throw new CliError(`--adjudicate: ${coder} has no ${codebook.id} codes in ${context.dir} (coders with codes: ${known.join(", ") || "none"})`);
      compared.set(coder, await context.codes(codebook.id, coder));
    }
    items = disagreements(items, compared);
    mode = { kind: "adjudicate", decider: person.slice("human:".length), coders };
  }
  const writer = mode.kind === "code" ? person : ADJUDICATED_CODER;
  const desk = new Desk({
    codebook,
    mode,
    items,
    existing: await context.codes(codebook.id, writer),
    compared,
    store: lockedStore(context, effects),
    window: options.window,
  });
  const title =
    mode.kind === "code" ? `${codebook.title}: ${person} coding ${context.dir}` : `${codebook.title}: ${person} adjudicating ${mode.coders.join(" vs ")}`;
  const server = await startAnnotateServer(desk, { host: options.host, port: options.port, title });
  effects.log(`annotate: ${items.length} turn(s), ${desk.done} already ${mode.kind === "code" ? "coded" : "decided"} by ${writer}`);
  return { ...server, codebook: codebook.id, writer, total: items.length, done: desk.done, sampleProblems };
}

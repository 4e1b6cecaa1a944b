import { listCoders, readCodes } from "../coding/store.js";
import { cutRecords, type CodeCut, type CodeRecord, type CodeValue } from "../coding/records.js";
import { createChatModel, type LlmClient } from "../llm/client.js";
import { resolveModelConfig, type ModelCliOptions } from "../llm/config.js";
import type { StudyConfig } from "../study/config.js";
import { sessionHash } from "../study/memo.js";
import { loadSessions, loadStudyConfig, studyPaths, type StudyPaths } from "../study/study.js";
import { currentBySession, verdictsOf, type StudyReader } from "../study/reader.js";
import { withTurns } from "../study/validated-sessions.js";
import type { Session } from "../transcript/schema.js";
import { CliError } from "../util/errors.js";
import { silentReporter, type Reporter } from "../util/reporter.js";

/**
 * Effects injected into every stage: human-readable lines and progress counters. The CLI passes
 * a terminal reporter (a bar on a TTY, milestone lines in CI), tests a silent or memory one.
 */
export type StageEffects = Reporter;

/** Builds the LLM client a stage calls. Tests and scripts inject their own. */
export type ModelFactory = (context: StudyContext, overrides: ModelCliOptions, effects: StageEffects) => LlmClient;

/**
 * What every stage function receives: the study's paths and validated config, and its sessions
 * and code records loaded at most once per context (one pipeline run, or one command). A stage
 * that writes sessions or codes calls `changed` so later stages of the same run read them anew.
 */
export interface StudyContext extends StudyReader {
  /** The study folder as the user named it (for messages and suggested commands). */
  readonly dir: string;
  readonly paths: StudyPaths;
  readonly config: StudyConfig;
  /** Every session of the study, sorted by condition, run, id; read once and shared. */
  sessions(): Promise<Session[]>;
  /** Coders with codes, per codebook id. */
  coders(): Promise<Record<string, string[]>>;
  /**
   * One coder's records of one codebook; read once and shared. With `keep: false`, records not
   * loaded yet are read for this caller alone and let go with it (what codeCut does).
   */
  codes(codebook: string, coder: string, options?: { keep?: boolean }): Promise<CodeRecord[]>;
  /**
   * One coder's records of one codebook cut to what the analyses and the build read (CodeCut);
   * read once and shared. The whole records read for it are let go (unless `codes` keeps them):
   * agree, compare and stats share these across a pipeline run, ~80 bytes a record where a whole
   * one takes ~400, and the build takes them from there, so each codes file is parsed once. With
   * `keep: false` (the build, the last stage), a cut not shared yet is made for the caller alone.
   */
  codeCut(codebook: string, coder: string, options?: { keep?: boolean }): Promise<CodeCut>;
  /** The values of `codeCut`. */
  codeValues(codebook: string, coder: string): Promise<CodeValue[]>;
  /** The LLM client for these overrides (CLI > colloquy.json > environment > default). */
  model(overrides: ModelCliOptions, effects: StageEffects): LlmClient;
  /** Forget what was loaded after a stage wrote sessions or codes. */
  changed(what: "sessions" | "codes"): void;
  /**
   * Let go of the sessions loaded so far (the code values cut from the records stay): the next
   * `sessions()` gives their heads again (unchanged files are stamped, not read), and a stage
   * reads the turns it needs anew. The pipeline calls it after each stage, so turns that one
   * stage read are not held through the stages after it (issue 40).
   */
  releaseSessions(): void;
}

/** The real client, with retries reported as warnings. */
export const defaultModelFactory: ModelFactory = (context, overrides, effects) =>
  createChatModel(resolveModelConfig({ cli: overrides, study: context.config.model, studyDir: context.dir }), {
    onRetry: ({ attempt, delayMs, error }) => effects.warn(`${error.message}; retry ${attempt} in ${(delayMs / 1000).toFixed(1)} s`),
  });

/** Open a study: validates colloquy.json now (naming a wrong field); loads data lazily. */
export async function openStudy(dir: string, options: { modelFactory?: ModelFactory } = {}): Promise<StudyContext> {
  const config = await loadStudyConfig(dir);
  const factory = options.modelFactory ?? defaultModelFactory;
  let sessions: Promise<Session[]> | undefined;
  // Each session's content hash as this context first loaded it: a later load (after
  // releaseSessions) must find the same files, as readSessionAgain demands of a file read again,
  // since the code records this run checked and cut were checked against those turns. Only a
  // stage that writes sessions (changed) starts anew; a load begun before that is not compared.
  let known: Map<string, string> | undefined;
  let generation = 0;
  const loadUnchanged = async (): Promise<Session[]> => {
    const at = generation;
    const loaded = await loadSessions(dir);
    if (at === generation) {
      const hashes = new Map(loaded.map((s) => [s.id, sessionHash(s)]));
      if (known) assertSameSessions(dir, known, hashes);
      else known = hashes;
    }
    return loaded;
  };
  let coders: Promise<Record<string, string[]>> | undefined;
  const codes = new Map<string, Promise<CodeRecord[]>>();
  const cuts = new Map<string, Promise<CodeCut>>();
  const context: StudyContext = {
    dir,
    paths: studyPaths(dir),
    config,
    // A failed load is not remembered: the next call tries again.
    sessions: () => (sessions ??= loadUnchanged().catch((error) => ((sessions = undefined), Promise.reject(error)))),
    coders: () => (coders ??= listCoders(dir)),
    codes(codebook, coder, { keep = true } = {}) {
      const key = `${codebook}\u0000${coder}`;
      let records = codes.get(key);
      if (!records) {
        // Only records that still describe their turn (study/reader.ts), checked a session at a time.
        records = Promise.all([readCodes(dir, codebook, coder), context.sessions()]).then(async ([all, sessions]) =>
          currentBySession(all, sessions, withTurns, await verdictsOf(dir, codebook, coder)),
        );
        if (keep) codes.set(key, records);
      }
      return records;
    },
    codeCut(codebook, coder, { keep = true } = {}) {
      const key = `${codebook}\u0000${coder}`;
      let cut = cuts.get(key);
      if (!cut) {
        // A failed read is not remembered: the next call tries again.
        cut = context.codes(codebook, coder, { keep: false }).then(
          cutRecords,
          (error: unknown) =>
            // Unless changed() has since put a newer read there.
            (cuts.get(key) === cut && cuts.delete(key), Promise.reject(error)),
        );
        if (keep) cuts.set(key, cut);
      }
      return cut;
    },
    codeValues: async (codebook, coder) => (await context.codeCut(codebook, coder)).values,
    model: (overrides, effects) => factory(context, overrides, effects),
    changed(what) {
      if (what === "sessions") {
        sessions = known = undefined;
        generation++;
      }
      codes.clear();
      cuts.clear();
      coders = undefined;
    },
    releaseSessions() {
      sessions = undefined;
    },
  };
  return context;
}

/** The effects of a stage run with nobody listening. */
export const silentEffects: StageEffects = silentReporter;

/** Stop the run if the sessions loaded again are not those loaded first: a file was edited, added or removed in between. */
function assertSameSessions(dir: string, first: ReadonlyMap<string, string>, now: ReadonlyMap<string, string>): void {
  // Every id loaded now was loaded first with the same hash, and as many: the same sessions.
  const edited = [...now].find(([id, hash]) => first.get(id) !== hash)?.[0];
  if (edited === undefined && now.size === first.size) return;
  const which = edited !== undefined ? `session ${edited} was edited or added` : "a session was removed";
  throw new CliError(`${studyPaths(dir).sessions}: ${which} while this run was using the study; run the command again`);
}

import { readdir, rename, rm, stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { loadCodebook } from "../coding/codebook/load.js";
import { chooseCodebook } from "./codebook-choice.js";
import type { Codebook } from "../coding/codebook/schema.js";
import type { CodeRecord } from "../coding/records.js";
import { readCodeHistory, replaceCodes } from "../coding/store.js";
import { categoryLabelIndex, matchCodeLabel, type LabelIndex } from "../ingest/code-labels.js";
import { PathPatternError } from "../ingest/path-pattern.js";
import { FormatError, importEach, type FileImport, type ImportFilesOptions } from "../ingest/registry.js";
import type { ImportedCode } from "../ingest/types.js";
import { artifacts, loadArtifact, writeArtifact } from "../study/artifacts.js";
import { listSessionIds, loadSessions, sessionPath, studyPaths } from "../study/study.js";
import { realignCodes, turnsChanged, type Reimport } from "../coding/realign.js";
import { sessionFingerprints } from "../transcript/fingerprint.js";
import { slugify, uniqueId } from "../transcript/ids.js";
import type { Session } from "../transcript/schema.js";
import { validateSession } from "../transcript/validate.js";
import { CliError, errorMessage } from "../util/errors.js";
import { describeRepair, writeFileAtomic } from "../util/fs.js";
import { garbageBudget } from "../util/memory.js";
import { isThisProcess, OWNER_TAG, taggedOwnerRunning } from "../util/process.js";
import { provenance } from "../util/provenance.js";
import type { SpeakerSettings } from "../study/config.js";
import type { StageEffects, StudyContext } from "./context.js";
import { listHumanCoders } from "./human-coders.js";
import { FileUndo } from "./import-undo.js";

/**
 * The import stage: transcripts in any supported format become sessions of the study, file by
 * file; code labels they carry (CSV code columns, labels in the transcript) become human code
 * records. Re-importing a file replaces the sessions it produced last time (the import map).
 */

export interface ImportStageOptions extends Omit<ImportFilesOptions, "codeColumns"> {
  /** Files or folders (folders are searched recursively). */
  paths: string[];
  /** CSV column -> coder id ("human:alice"). */
  codeColumns?: Record<string, string>;
  /** Codebook the imported labels belong to (default: the first nominal codebook colloquy.json lists). */
  codebook?: string;
}

/** Per-file outcome printed by the command and returned with --json. */
export interface FileReport {
  path: string;
  format?: string;
  sessions: string[];
  turns: number;
  codes: number;
  warnings: string[];
  error?: string;
  skipped?: boolean;
  /** Re-imports: codes that followed their turn to a new id, and codes moved to a stale list. */
  codesMoved?: number;
  codesStale?: number;
}

export interface ImportSummary {
  files: FileReport[];
  inputs: number;
  imported: number;
  failed: number;
  skipped: number;
  sessions: number;
  turns: number;
  codes: number;
  /** Codes that followed their turn to a new id after an edited transcript was re-imported. */
  codesMoved: number;
  /** Codes whose turn was edited or removed, now on a stale list (never applied to another turn). */
  codesStale: number;
  warnings: number;
  /** The coders newly listed under humanCoders in colloquy.json (human-coders.ts). */
  listed: string[];
}

/** Where re-imports find the session id a source file's session got last time. */
async function writeImportMap(study: string, importMap: Record<string, string>): Promise<void> {
  await writeArtifact(artifacts.importMap, study, {
    ...provenance({ note: "source file#session -> study session id, so re-imports replace sessions" }),
    sessions: importMap,
  });
}

async function readImportMap(study: string): Promise<Record<string, string>> {
  const read = await loadArtifact(artifacts.importMap, study);
  if (read.status === "missing") return {};
  if (read.status === "invalid")
    throw new CliError(`${artifacts.importMap.path(study)}: unreadable (${read.problem}); delete it to re-import with fresh session ids`);
  return read.value.sessions;
}

/**
 * A file's imported code labels, resolved against the sessions just saved, so they can wait for
 * storeCodes without keeping those sessions alive: only ids and line numbers are kept.
 */
interface CodeBatch {
  file: string;
  /** Study ids of every session the file produced (their old codes are replaced). */
  sessions: string[];
  /** `fingerprint` of the labelled turn; undefined when the label points at no turn. */
  codes: { code: ImportedCode; session?: string; fingerprint?: string; line?: number }[];
}

/** A session staged by saveFile (`.<id>.json.import-<pid>.tmp`), or writeFileAtomic's temp for one. */
const STAGED = /^\..+\.json\.import-(\d+)\.tmp(?:\.\d+(?:~[0-9a-f]{8}~[0-9a-f]{8})?\.[0-9a-f]{8}\.tmp)?$/;
/** writeFileAtomic's temp for the import map (util/fs.ts tempName), written once per imported file. */
const MAP_TEMP = new RegExp(String.raw`^\.\.colloquy-imports\.json\.(${OWNER_TAG})\.[0-9a-f]{8}\.tmp$`);

/**
 * Remove what a killed import left behind: staged sessions in sessions/ (a whole session each)
 * and temps of the import map, never read and never removed otherwise, so every kill added some.
 * Only those of a process no longer running: this import holds the lock, so any other importer
 * is gone, but a pid that runs again on this machine is left alone to be safe.
 */
async function removeStaleStaging(study: string): Promise<void> {
  const stale = (owner: string) => !isThisProcess(owner) && !taggedOwnerRunning(owner);
  for (const [dir, pattern] of [
    [studyPaths(study).sessions, STAGED],
    [study, MAP_TEMP],
  ] as const) {
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      const owner = pattern.exec(name)?.[1];
      if (owner !== undefined && stale(owner)) await rm(join(dir, name), { force: true });
    }
  }
}

/** Import transcripts into the study. Per-file failures are reported in the summary, not thrown. */
export async function runImport(context: StudyContext, options: ImportStageOptions, effects: StageEffects): Promise<ImportSummary> {
  const study = context.dir;
  const { paths, codebook, codeColumns = {}, ...parse } = options;
  const stream = importEach(paths, { ...parse, ...statedSpeakers(parse, context.config.speakers), codeColumns });
  await removeStaleStaging(study);
  const importMap = await readImportMap(study);
  // Ids the import map gives out are taken even while their session file is missing (a kill
  // between the map's write and the session's): another file's session must not get one.
  const taken = new Set([...(await listSessionIds(study)), ...Object.values(importMap)]);
  const reports: FileReport[] = [];
  const codeBatches: CodeBatch[] = [];
  // File by file: each file's sessions are validated and saved before the next file is parsed,
  // so memory holds one file's sessions, not the corpus (see importEach).
  const processed = garbageBudget();
  try {
    for await (const file of stream) {
      const report: FileReport = { path: file.path, format: file.format, sessions: [], turns: 0, codes: 0, warnings: [] };
      reports.push(report);
      const batch = await saveFile(study, file, report, importMap, taken);
      if (batch) codeBatches.push(batch);
      // The file's sessions are saved and dropped: keep the peak near one file, not GC slack.
      processed(
        await stat(file.path).then(
          (s) => (s.isFile() ? s.size : 0),
          () => 0,
        ),
      );
    }
  } catch (error) {
    // Bad --format / --path-pattern surface on the stream's first step, before any file is read.
    if (error instanceof FormatError || error instanceof PathPatternError) throw new CliError(error.message);
    throw error;
  } finally {
    context.changed("sessions");
  }
  // The codebook the labels belong to: the one default rule (nominal codebooks); without one each code is a warning.
  const labels = codeBatches.length > 0 ? await chooseCodebook(context, codebook, { command: "import", nominal: true }).catch(() => undefined) : codebook;
  const coders = await storeCodes(study, labels, codeBatches, reports, [...Object.values(codeColumns), "human:transcript"]);
  return { ...summarise(reports), listed: await listHumanCoders(study, coders, effects) };
}

/**
 * The speakers colloquy.json names, beside those of the command line: a flag wins over the file
 * (a name the file calls AI and --humans calls a person is a person), and both lists add up.
 */
function statedSpeakers(flags: ImportFilesOptions, speakers: SpeakerSettings): Pick<ImportFilesOptions, "agents" | "humans" | "aliases"> {
  const named = (names: readonly string[] | undefined) => new Set((names ?? []).map((n) => n.trim().toLowerCase()));
  const [flagAgents, flagHumans] = [named(flags.agents), named(flags.humans)];
  const agents = [...(flags.agents ?? []), ...(speakers.ai ?? []).filter((n) => !flagHumans.has(n.trim().toLowerCase()))];
  const humans = [...(flags.humans ?? []), ...(speakers.human ?? []).filter((n) => !flagAgents.has(n.trim().toLowerCase()))];
  return {
    ...(agents.length ? { agents } : {}),
    ...(humans.length ? { humans } : {}),
    ...((flags.aliases ?? speakers.aliases) ? { aliases: { ...speakers.aliases, ...flags.aliases } } : {}),
  };
}

function summarise(files: FileReport[]): Omit<ImportSummary, "listed"> {
  const ok = files.filter((r) => !r.error);
  return {
    files,
    inputs: files.length,
    imported: ok.length,
    failed: files.filter((r) => r.error && !r.skipped).length,
    skipped: files.filter((r) => r.skipped).length,
    sessions: ok.reduce((n, r) => n + r.sessions.length, 0),
    turns: ok.reduce((n, r) => n + r.turns, 0),
    codes: ok.reduce((n, r) => n + r.codes, 0),
    codesMoved: files.reduce((n, r) => n + (r.codesMoved ?? 0), 0),
    codesStale: files.reduce((n, r) => n + (r.codesStale ?? 0), 0),
    warnings: files.reduce((n, r) => n + r.warnings.length, 0),
  };
}

/**
 * Validate and save one file's sessions, filling its report; returns its code labels (resolved
 * to study ids and lines) when it has any. Every session of the file is validated before any is
 * written: a file is imported whole or not at all.
 */
async function saveFile(
  study: string,
  file: FileImport,
  report: FileReport,
  importMap: Record<string, string>,
  taken: Set<string>,
): Promise<CodeBatch | undefined> {
  if (!file.result) {
    report.error = file.error;
    if (file.skipped) report.skipped = true;
    return undefined;
  }
  report.warnings.push(...file.result.warnings);
  const ids = new Map<string, string>();
  const entries: Record<string, string> = {};
  const ready: Session[] = [];
  try {
    for (const input of file.result.sessions) {
      if (ids.has(input.id))
        throw new Error(`two sessions in this file have the id "${input.id}"; each session of a file needs its own id (nothing was imported from it)`);
      const key = `${resolve(file.path)}#${input.id}`;
      const meta = input.metadata ?? {};
      const readable = slugify([meta.condition, meta.run, input.id].filter((p) => typeof p === "string" && p !== "").join("-"));
      const id = importMap[key] ?? uniqueId(readable, taken);
      taken.add(id);
      entries[key] = id;
      ids.set(input.id, id);
      ready.push(validateSession({ ...input, id }, file.path));
    }
  } catch (error) {
    report.error = errorMessage(error);
    return undefined;
  }
  // An earlier import of this file made sessions it no longer makes (its sessions are keyed
  // differently now, e.g. by condition+run): they stay in the study, and the user must know.
  const prefix = `${resolve(file.path)}#`;
  const orphans = Object.entries(importMap)
    .filter(([key]) => key.startsWith(prefix) && !(key in entries))
    .map(([, id]) => id);
  if (orphans.length > 0) {
    report.warnings.push(
      `an earlier import of this file made session(s) ${orphans.join(", ")}, which it no longer makes (are its sessions keyed differently now?); they are still in the study, with their codes`,
    );
  }
  // The sessions' previous versions are read before the map names the new ids (a fresh import's id
  // would otherwise look like a re-import of itself).
  let reimports: Reimport[];
  try {
    reimports = await previousVersions(study, ready, entries, importMap);
  } catch (error) {
    report.error = `could not read its earlier sessions: ${errorMessage(error)}`;
    return undefined;
  }
  // Map first, then write the sessions: a kill in between leaves a map entry whose session is
  // missing (the next import writes it under the same id), never a session file the map does not
  // know, which the next import would add again under a new id.
  const previous = new Map(Object.keys(entries).map((key) => [key, importMap[key]]));
  for (const [key, id] of Object.entries(entries)) importMap[key] = id;
  await writeImportMap(study, importMap);
  // Whole or nothing: the new sessions go to temp files first (a full disk fails here, before the
  // study changed), then codes follow their turns, then the temps are renamed into place. Any
  // failure on the way puts back every file the step touched and the map as it was.
  const undo = new FileUndo();
  const staged: { temp: string; path: string }[] = [];
  try {
    for (const session of ready) {
      const path = sessionPath(study, session.id);
      const temp = join(dirname(path), `.${session.id}.json.import-${process.pid}.tmp`);
      staged.push({ temp, path });
      // As saveSession writes it (sessions in `ready` are validated already).
      await writeFileAtomic(temp, JSON.stringify(session, null, 2) + "\n");
    }
    // Codes of re-imported sessions follow their turns before the new sessions replace the old.
    if (reimports.some(turnsChanged)) await undo.keepFolder(studyPaths(study).codes);
    const realigned = await realignCodes(study, reimports, `colloquy import ${file.path}`, (r) => isImportedFrom(r, file.path));
    for (const { temp, path } of staged) {
      await undo.keep(path);
      await rename(temp, path);
    }
    if (realigned.moved > 0) report.codesMoved = realigned.moved;
    for (const repair of realigned.repairs) report.warnings.push(describeRepair(repair, study));
    if (realigned.stale > 0) {
      report.codesStale = realigned.stale;
      report.warnings.push(
        `${realigned.stale} code(s) no longer match their turn's words (${realigned.staleHuman} by human coders) and were moved to ${realigned.staleFiles.join(", ")}; list them with \`colloquy sessions ${study} --stale\``,
      );
    }
    for (const session of ready) {
      report.sessions.push(session.id);
      report.turns += session.turns.length;
    }
  } catch (error) {
    report.error = `could not save its sessions (the study is as it was before this file): ${errorMessage(error)}`;
    for (const { temp } of staged) await rm(temp, { force: true });
    await undo.restore();
    // Unmap what was not written (back to what an earlier import mapped, if anything).
    for (const [key, before] of previous) {
      if (before === undefined) delete importMap[key];
      else importMap[key] = before;
    }
    await writeImportMap(study, importMap);
  }
  if (report.error) return undefined;
  if (file.result.codes.length === 0) return undefined;
  const byId = new Map(ready.map((s) => [s.id, s]));
  return {
    file: file.path,
    sessions: ready.map((s) => s.id),
    codes: file.result.codes.map((code) => {
      const session = ids.get(code.session);
      const turn = session === undefined ? undefined : byId.get(session)?.turns.find((t) => t.id === code.turn);
      const line = turn?.metadata?.line;
      const fingerprint = turn && sessionFingerprints(byId.get(session!)!).get(turn.id);
      return { code, session, fingerprint, ...(typeof line === "number" ? { line } : {}) };
    }),
  };
}

/** The sessions on disk that `ready` will replace (re-imports of the same source file and session). */
async function previousVersions(
  study: string,
  ready: readonly Session[],
  entries: Record<string, string>,
  importMap: Record<string, string>,
): Promise<Reimport[]> {
  const reimported = new Set(
    Object.entries(entries)
      .filter(([key]) => importMap[key] !== undefined)
      .map(([, id]) => id),
  );
  const out: Reimport[] = [];
  for (const after of ready) {
    if (!reimported.has(after.id)) continue;
    const before = await loadSessions(study, [after.id]).then(
      ([s]) => s,
      () => undefined,
    );
    if (before) out.push({ before, after });
  }
  return out;
}

/** Codes an earlier import of this file brought with it: storeCodes replaces them, realign leaves them. */
function isImportedFrom(record: CodeRecord, file: string): boolean {
  const source = record.provenance.source;
  return record.provenance.via === "colloquy import" && typeof source === "string" && resolve(source) === resolve(file);
}

/**
 * Imported code labels -> CodeRecords under each coder, matched to the codebook's categories.
 * Codes of re-imported sessions replace their old ones; other sessions' codes are kept.
 * Unmatched labels become warnings naming file and line. Returns the coders whose codes were stored.
 */
async function storeCodes(
  study: string,
  defaultCodebook: string | undefined,
  batches: CodeBatch[],
  reports: FileReport[],
  sourceCoders: readonly string[],
): Promise<string[]> {
  const indexes = new Map<string, LabelIndex>();
  const fresh = new Map<string, { codebook: Codebook; coder: string; records: CodeRecord[]; sessions: Set<string> }>();
  for (const batch of batches) {
    const report = reports.find((r) => r.path === batch.file)!;
    for (const { code, session, fingerprint, line } of batch.codes) {
      const ref = code.codebook ?? defaultCodebook;
      const where = `${batch.file}${line !== undefined ? `:${line}` : ""}`;
      if (!ref) {
        report.warnings.push(`${where}: code "${code.label}" not stored: no codebook (pass --codebook <id>)`);
        continue;
      }
      if (!session || !fingerprint) {
        report.warnings.push(`${where}: code "${code.label}" points at unknown turn ${code.session}/${code.turn}; not stored`);
        continue;
      }
      let index = indexes.get(ref);
      if (!index) {
        index = categoryLabelIndex(await loadCodebook(ref, study));
        indexes.set(ref, index);
      }
      if (index.codebook.kind !== "nominal") {
        report.warnings.push(`${where}: code "${code.label}" not stored: codebook ${index.codebook.id} has scales, not categories`);
        continue;
      }
      const { ids, unmatched } = matchCodeLabel(index, code.label);
      if (unmatched.length > 0) {
        report.warnings.push(
          `${where}: code label ${unmatched.map((u) => JSON.stringify(u)).join(", ")} matches no category id, label or alias of codebook ${index.codebook.id}${ids.length ? "; the rest was stored" : "; not stored"}`,
        );
      }
      if (ids.length === 0) continue;
      const key = `${index.codebook.id}\u0000${code.coder}`;
      let group = fresh.get(key);
      if (!group) {
        group = { codebook: index.codebook, coder: code.coder, records: [], sessions: new Set() };
        fresh.set(key, group);
      }
      for (const s of batch.sessions) group.sessions.add(s);
      group.records.push({
        session,
        turn: code.turn,
        fingerprint,
        codebook: index.codebook.id,
        codebookVersion: index.codebook.version,
        coder: code.coder,
        codes: ids,
        provenance: provenance({ source: batch.file, line, label: code.label, via: "colloquy import" }),
        createdAt: new Date().toISOString(),
      });
      report.codes++;
    }
  }
  // Only codes an earlier import brought for these sessions are replaced: a coder's codes from
  // sheets, the coding page or anywhere else stay, with their history (read raw, not latest-per-turn).
  const fromImport = (r: CodeRecord, sessions: ReadonlySet<string>) => sessions.has(r.session) && r.provenance.via === "colloquy import";
  for (const group of fresh.values()) {
    const kept = (await readCodeHistory(study, group.codebook.id, group.coder)).filter((r) => !fromImport(r, group.sessions));
    await replaceCodes(study, group.codebook.id, group.coder, [...kept, ...group.records]);
  }
  // A re-imported file whose code column (named again with --code-column) or transcript labels
  // are now empty: codes an earlier import brought for its sessions no longer have a source, so
  // they go too. Other coders, and codes made any other way, are never touched.
  const imported = new Set(reports.flatMap((r) => r.sessions));
  const codebooks = new Set([...(defaultCodebook ? [defaultCodebook] : []), ...[...fresh.values()].map((g) => g.codebook.id)]);
  for (const codebook of codebooks) {
    for (const coder of sourceCoders) {
      if (fresh.has(`${codebook}\u0000${coder}`)) continue;
      const records = await readCodeHistory(study, codebook, coder);
      const kept = records.filter((r) => !fromImport(r, imported));
      if (kept.length !== records.length) await replaceCodes(study, codebook, coder, kept);
    }
  }
  return [...new Set([...fresh.values()].map((group) => group.coder))];
}

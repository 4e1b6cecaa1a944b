import { readdir, stat } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { studyPaths } from "../study/study.js";
import { silentReporter, type Reporter } from "../util/reporter.js";
import {
  analysisSummary,
  codebookSummary,
  finishIndex,
  shapeCodebookParts,
  shapeSessionParts,
  type AnalysisShapes,
  type AnalysisSummary,
  type CodebookSummary,
  type SessionShapes,
} from "./bundle.js";
import { keepAnalysis, loadCodebooks, noAnalysisFiles, readAnalysisFiles, shapedCodes } from "./load.js";
import { diskSessions, type BuildSessions } from "./sessions.js";
import { loadStudyConfig } from "../study/study.js";
import { listCoders } from "../coding/store.js";
import { readAgreement, readConcepts, readTopics } from "./shape/analysis.js";
import { dashboardSchema } from "./dashboard-reads.js";
import { chunkOf, codeSetFacts, type SessionBadges } from "./shape/overview.js";
import { describeCodebook, seenIn } from "./shape/common.js";
import { balesFrame } from "./shape/bales.js";
import { codebookSessionPart, mergeBadges, sessionBadges, sessionPart, type CodebookSessionPart, type SessionPart } from "./shape/parts.js";
import { codesDigest, openMemo, sessionHash } from "../study/memo.js";
import { recordsBySession } from "../coding/records.js";
import { VIEW_DATA, type CodebookInfo, type ConceptsSet, type ReportBundle, type SiteIndex, type TopicsSet } from "./types.js";
import { collectGarbage } from "../util/memory.js";
import { openSite, type SiteResult, type SiteWriter } from "./site.js";
import type { JsonObjectWriter } from "./json-file.js";

export interface BuildOptions {
  /** Output folder (default `<study>/site`). */
  out?: string;
  reporter?: Reporter;
  /**
   * Where sessions and records come from (report/sessions.ts): by default the study's files, one
   * session whole at a time; the pipeline passes what its context holds (heldSessions).
   */
  sessions?: BuildSessions;
}

export interface BuildResult extends SiteResult {
  warnings: string[];
  /** Milliseconds spent loading + shaping, and writing (incl. bundling the app). */
  timings: { shape: number; write: number };
}

/** Build the dashboard of a study into a static site folder. */
export async function buildSite(study: string, options: BuildOptions = {}): Promise<BuildResult> {
  const reporter = options.reporter ?? silentReporter;
  const out = resolve(options.out ?? studyPaths(study).site);
  const t0 = performance.now();
  const site = await openSite(out);
  const index = await shapeStudy(study, options.sessions, site);
  const t1 = performance.now();
  const result = await site.finish(index);
  const t2 = performance.now();
  for (const w of index.warnings) reporter.warn(w);
  return { ...result, warnings: index.warnings, timings: { shape: t1 - t0, write: t2 - t1 } };
}

/** The views whose entries each codebook adds (its part's member of the same name). */
const CODEBOOK_VIEWS = [
  ["who", "distributions"],
  ["compare", "compare"],
  ["style", "styles"],
  ["bales", "bales"],
] as const;

/**
 * Shape the study a piece at a time (the same data as assembleReport), writing each view's file
 * as its data is made and letting it go (issue 40: the build holds one view's data, not the
 * whole bundle): the analysis files one by one, each shaped as it is read (agreement, topics);
 * then each session's part (summary, speakers, participation, ...); then one codebook's code files
 * at a time, each session's part of them, whose entries go to the views it adds to (who, compare,
 * sequences, style, Bales); then each session's chunk, written as it is made; the overview last.
 * The study-level shapes are merges of the session parts (src/report/shape/parts.ts); the parts
 * are kept per session in the study's memo (keyed by the session's content and the digest of its
 * code records), so a build after one session was added or changed shapes that session only.
 * Across the study the build holds each session's head (no turns) and small per-session parts;
 * a session is read whole only for a step that needs its turns (report/sessions.ts).
 * Returns the index (what every view shares), for the site writer to write last.
 */
async function shapeStudy(study: string, given: BuildSessions | undefined, site: SiteWriter): Promise<Omit<SiteIndex, "views">> {
  const paths = studyPaths(study);
  const config = await loadStudyConfig(study);
  const readWarnings: string[] = [];
  const coders = await listCoders(study);
  const definitions = await loadCodebooks(paths.root, config, Object.keys(coders), readWarnings);
  const { analysis, compareFiles } = await shapeAnalysisFiles(paths.root, readWarnings, site);
  // Read after the analysis files: their garbage is collected while the heads are not held yet.
  const source = given ?? (await diskSessions(study));
  const sessions = source.heads;
  const { base, binSizes, sequences } = await shapeSessions(study, source, config.compare.control, site);
  const writers = await Promise.all(
    CODEBOOK_VIEWS.map(async ([view, member]) => {
      const writer = await site.view(view);
      await writer.append(member, []);
      return { writer, member };
    }),
  );
  // Each session's badges of each codebook (code set order) for its chunk: their digests always,
  // their text when the part was made now or the chunk must be written. Kept as JSON text until
  // the chunk is written: as objects (an array per badge and per turn) a build that makes every
  // part (after a code change) held ~70 MB of them at 100,000 turns, as text ~6 times less.
  const digests = sessions.map((): string[] => []);
  const made = sessions.map((): (string | undefined)[] => []);
  const books: { codebook: string; coders: string[]; info: CodebookInfo }[] = [];
  const summaries: CodebookSummary[] = [];
  // One codebook's code values at a time (those the pipeline's earlier stages share stay with them;
  // the others are let go before the next codebook's are read), with the summary of the whole
  // records that the overview and the codebook's categories need (CodeCut).
  const readSets = async (codebook: string, list: string[]) => {
    const cuts = await source.codes(codebook, list);
    const sets = list.map((coder, k) => shapedCodes(codebook, coder, cuts[k].values));
    return { sets, facts: sets.map((set, k) => codeSetFacts(set, cuts[k].summary)), seen: seenIn(cuts.map((cut) => cut.summary)) };
  };
  for (const [codebook, list] of Object.entries(coders)) {
    const definition = definitions.get(codebook) ?? null;
    const { sets, facts, seen } = await readSets(codebook, list);
    // Reading made several times the records' size in garbage (lines, parsed values), and the
    // last codebook's shapes are garbage now: collected here (when the heap grew: util/memory.ts), the peak is what is alive (issue 33).
    collectGarbage();
    const info = describeCodebook(codebook, definition, list, seen);
    const frame = balesFrame(info, definition);
    // The codebook's categories (order, labels, groups), coders and fallback are settings of every part of it.
    const memo = await openMemo<CodebookSessionPart>(study, ["report-codebook", codebook], { info, coders: list, fallback: frame?.fallback });
    const bySession = sets.map((set) => recordsBySession(set.records));
    const codebookParts: CodebookSessionPart[] = [];
    for (const [i, head] of sessions.entries()) {
      const inputs = `${sessionHash(head)} ${bySession.map((m) => codesDigest(m.get(head.id) ?? [])).join(" ")}`;
      // A session whose part is kept is never read whole.
      codebookParts.push(
        await memo.getAsync(head.id, inputs, async () => {
          const { badges, ...part } = codebookSessionPart(await source.load(i), sets, info, binSizes[i], frame);
          made[i][books.length] = JSON.stringify(badges);
          return part;
        }),
      );
    }
    await memo.save();
    codebookParts.forEach((part, i) => digests[i].push(part.badgesDigest));
    books.push({ codebook, coders: list, info });
    const part = shapeCodebookParts(info, definition, sets, facts, sessions, codebookParts, base, config, compareFiles.get(codebook));
    for (const { writer, member } of writers) await writer.append(member, part[member]);
    await sequences.append("sequences", part.sequences);
    summaries.push(codebookSummary(part));
    collectGarbage();
  }
  for (const { writer } of writers) await writer.close();
  await sequences.close();
  // A chunk depends on its session and its badges only: one whose file is there from an earlier
  // build with the same inputs is kept without being made again.
  const chunkMemo = await openMemo<{ file: string; bytes: number }>(study, "report-chunks", {});
  const chunkInputs = sessions.map((session, i) => `${sessionHash(session)} ${digests[i].join(" ")}`);
  const todo: number[] = [];
  for (const [i, session] of sessions.entries()) {
    const known = chunkMemo.kept(session.id, chunkInputs[i])?.value;
    if (!known || !(await site.keep(session.id, known.file, known.bytes))) todo.push(i);
  }
  // Badges of chunks to write whose codebook parts were kept (the chunk's file went missing): that codebook's values are asked for again.
  for (const [b, book] of books.entries()) {
    const missing = todo.filter((i) => made[i][b] === undefined);
    if (missing.length === 0) continue;
    const { sets } = await readSets(book.codebook, book.coders);
    for (const i of missing) made[i][b] = JSON.stringify(sessionBadges(await source.load(i), sets, book.info));
  }
  for (const i of todo) {
    const badges = made[i].map((text) => JSON.parse(text!) as SessionBadges);
    chunkMemo.set(sessions[i].id, chunkInputs[i], await site.chunk(chunkOf(await source.load(i), mergeBadges(badges))));
    made[i] = [];
  }
  await chunkMemo.save();
  const { index, overview } = finishIndex(basename(paths.root), config, base, summaries, analysis, readWarnings);
  await writeView(site, "overview", { overview });
  return index;
}

/** Write a view's file whole (its members in VIEW_DATA order). */
async function writeView<V extends keyof typeof VIEW_DATA>(site: SiteWriter, view: V, data: Pick<ReportBundle, (typeof VIEW_DATA)[V][number]>): Promise<void> {
  const writer = await site.view(view);
  for (const member of VIEW_DATA[view]) await writer.member(member, data[member as keyof typeof data]);
  await writer.close();
}

/**
 * The analysis files, one at a time, each shaped as it is read: the agreement and topics views are
 * written now; what is kept is what the index needs, and the compare files (read with the
 * codebooks' views).
 */
async function shapeAnalysisFiles(
  root: string,
  readWarnings: string[],
  site: SiteWriter,
): Promise<{ analysis: AnalysisSummary; compareFiles: AnalysisShapes["compare"] }> {
  const warnings: string[] = [];
  const kept = noAnalysisFiles();
  let topics: TopicsSet | null = null;
  let concepts: ConceptsSet | null = null;
  await readAnalysisFiles(
    root,
    readWarnings,
    (entry) => {
      const one = noAnalysisFiles();
      keepAnalysis(one, entry);
      kept.files.push(...one.files);
      kept.agreement.push(...one.agreement);
      for (const [id, file] of one.compare) kept.compare.set(id, file);
      if (one.topics) topics = readTopics(one.topics, warnings);
      if (one.concepts) concepts = readConcepts(one.concepts, warnings);
    },
    dashboardSchema,
  );
  const agreement = readAgreement(kept.agreement, warnings);
  await writeView(site, "agreement", { agreement });
  await writeView(site, "topics", { topics, concepts });
  return {
    analysis: analysisSummary({ agreement, topics, concepts, compare: kept.compare, files: kept.files, warnings }),
    compareFiles: kept.compare,
  };
}

/**
 * Each session's part (kept in the memo), and what the study's sessions give the views: the
 * participation view is written now, the sequences view started (each codebook adds its cells).
 * Returns what the rest of the build needs: the index's part, and each session's sequence bin size.
 */
async function shapeSessions(
  study: string,
  source: BuildSessions,
  control: string | undefined,
  site: SiteWriter,
): Promise<{ base: Omit<SessionShapes, "participation" | "sequenceSessions">; binSizes: number[]; sequences: JsonObjectWriter }> {
  const sessionMemo = await openMemo<SessionPart>(study, "report-sessions", {});
  const sessionParts: SessionPart[] = [];
  for (const [i, head] of source.heads.entries())
    sessionParts.push(await sessionMemo.getAsync(head.id, sessionHash(head), async () => sessionPart(await source.load(i))));
  await sessionMemo.save();
  const { participation, sequenceSessions, ...base } = shapeSessionParts(sessionParts, control);
  await writeView(site, "participation", { participation });
  const sequences = await site.view("sequences");
  await sequences.member("sequenceSessions", sequenceSessions);
  await sequences.append("sequences", []);
  return { base, binSizes: sessionParts.map((p) => p.sequence.binSize), sequences };
}

async function newestMtime(path: string): Promise<number> {
  let info;
  try {
    info = await stat(path);
  } catch {
    return 0;
  }
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = info.mtimeMs;
  for (const name of await readdir(path)) newest = Math.max(newest, await newestMtime(join(path, name)));
  return newest;
}

/**
 * True when the site is missing or older than any of the study's data (config, sessions, codes,
 * analysis), i.e. `colloquy serve` must build before serving.
 */
export async function siteIsStale(study: string, siteDir?: string): Promise<boolean> {
  const paths = studyPaths(study);
  const index = join(resolve(siteDir ?? paths.site), "index.html");
  const built = await newestMtime(index);
  if (built === 0) return true;
  for (const source of [paths.config, paths.sessions, paths.codes, paths.analysis]) {
    if ((await newestMtime(source)) > built) return true;
  }
  return false;
}

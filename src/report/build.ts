import { readdir, stat } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { studyPaths } from "../study/study.js";
import { silentReporter, type Reporter } from "../util/reporter.js";
import { finishBundle, shapeCodebookParts, shapeSessionParts, type AnalysisShapes, type CodebookShapes } from "./bundle.js";
import { indexCodes, keepAnalysis, loadCodebooks, noAnalysisFiles, readAnalysisFiles, type CodeSet } from "./load.js";
import { diskReader, type StudyReader } from "../study/reader.js";
import { loadStudyConfig } from "../study/study.js";
import { listCoders } from "../coding/store.js";
import { readAgreement, readConcepts, readTopics } from "./shape/analysis.js";
import { chunkOf, codeSetFacts, type SessionBadges } from "./shape/overview.js";
import { describeCodebook, seenIn } from "./shape/common.js";
import { balesFrame } from "./shape/bales.js";
import { codebookSessionPart, mergeBadges, sessionBadges, sessionPart, type CodebookSessionPart, type SessionPart } from "./shape/parts.js";
import { codesDigest, openMemo, sessionHash } from "../study/memo.js";
import { recordsBySession } from "../coding/records.js";
import type { CodebookInfo, ReportBundle } from "./types.js";
import { openSite, type SiteResult, type SiteWriter } from "./site.js";

export interface BuildOptions {
  /** Output folder (default `<study>/site`). */
  out?: string;
  reporter?: Reporter;
  /** Where sessions and records come from (default: the study's files). */
  reader?: StudyReader;
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
  const bundle = await shapeStudy(study, options.reader ?? diskReader(study), site);
  const t1 = performance.now();
  const result = await site.finish(bundle);
  const t2 = performance.now();
  for (const w of bundle.warnings) reporter.warn(w);
  return { ...result, warnings: bundle.warnings, timings: { shape: t1 - t0, write: t2 - t1 } };
}

/**
 * Shape the study a piece at a time (the same bundle as assembleReport): analysis files one by
 * one, each shaped as it is read; then each session's part (summary, speakers, participation,
 * ...); then one codebook's code files at a time, each session's part of them; then each
 * session's chunk, written as it is made. The study-level shapes are merges of the session parts
 * (src/report/shape/parts.ts); the parts are kept per session in the study's memo (keyed by the
 * session's content and the digest of its code records), so a build after one session was added
 * or changed shapes that session only.
 */
async function shapeStudy(study: string, reader: StudyReader, site: SiteWriter): Promise<ReportBundle> {
  const paths = studyPaths(study);
  const config = await loadStudyConfig(study);
  const readWarnings: string[] = [];
  const coders = await listCoders(study);
  const definitions = await loadCodebooks(paths.root, config, Object.keys(coders), readWarnings);
  const analysis: AnalysisShapes = { agreement: [], topics: null, concepts: null, compare: new Map(), files: [], warnings: [] };
  const kept = noAnalysisFiles();
  // Each file is shaped as it is read, and only its shape kept (compare files are read by the codebooks' views).
  await readAnalysisFiles(paths.root, readWarnings, (entry) => {
    const one = noAnalysisFiles();
    keepAnalysis(one, entry);
    kept.files.push(...one.files);
    kept.agreement.push(...one.agreement);
    for (const [id, file] of one.compare) analysis.compare.set(id, file);
    if (one.topics) analysis.topics = readTopics(one.topics, analysis.warnings);
    if (one.concepts) analysis.concepts = readConcepts(one.concepts, analysis.warnings);
  });
  analysis.files = kept.files;
  analysis.agreement = readAgreement(kept.agreement, analysis.warnings);
  const sessions = await reader.sessions();
  const sessionMemo = await openMemo<SessionPart>(study, "report-sessions", {});
  const sessionParts = sessions.map((s) => sessionMemo.get(s.id, sessionHash(s), () => sessionPart(s)));
  await sessionMemo.save();
  const base = shapeSessionParts(sessionParts, config.compare.control);
  // Each session's badges of each codebook (code set order) for its chunk: their digests always,
  // their text when the part was made now or the chunk must be written.
  const digests = sessions.map((): string[] => []);
  const made = sessions.map((): (SessionBadges | undefined)[] => []);
  const books: { codebook: string; coders: string[]; info: CodebookInfo }[] = [];
  const parts: CodebookShapes[] = [];
  // One codebook's records at a time: they are let go before the next codebook's are read.
  const readSets = async (codebook: string, list: string[]) => {
    const sets: CodeSet[] = [];
    for (const coder of list) sets.push(indexCodes(codebook, coder, await reader.codes(codebook, coder)));
    return sets;
  };
  for (const [codebook, list] of Object.entries(coders)) {
    const definition = definitions.get(codebook) ?? null;
    const sets = await readSets(codebook, list);
    const info = describeCodebook(codebook, definition, list, seenIn(sets));
    const frame = balesFrame(info, definition);
    // The codebook's categories (order, labels, groups), coders and fallback are settings of every part of it.
    const memo = await openMemo<CodebookSessionPart>(study, ["report-codebook", codebook], { info, coders: list, fallback: frame?.fallback });
    const bySession = sets.map((set) => recordsBySession(set.records));
    const codebookParts = sessions.map((session, i) => {
      const inputs = `${sessionHash(session)} ${bySession.map((m) => codesDigest(m.get(session.id) ?? [])).join(" ")}`;
      return memo.get(session.id, inputs, () => {
        const { badges, ...part } = codebookSessionPart(session, sets, info, sessionParts[i].sequence.binSize, frame);
        made[i][books.length] = badges;
        return part;
      });
    });
    await memo.save();
    codebookParts.forEach((part, i) => digests[i].push(part.badgesDigest));
    books.push({ codebook, coders: list, info });
    parts.push(shapeCodebookParts(info, definition, sets, sets.map(codeSetFacts), sessions, codebookParts, base, config, analysis.compare.get(codebook)));
  }
  // A chunk depends on its session and its badges only: one whose file is there from an earlier
  // build with the same inputs is kept without being made again.
  const chunkMemo = await openMemo<{ file: string; bytes: number }>(study, "report-chunks", {});
  const chunkInputs = sessions.map((session, i) => `${sessionHash(session)} ${digests[i].join(" ")}`);
  const todo: number[] = [];
  for (const [i, session] of sessions.entries()) {
    const known = chunkMemo.has(session.id, chunkInputs[i]) ? chunkMemo.get(session.id, chunkInputs[i], () => ({ file: "", bytes: 0 })) : undefined;
    if (!known || !(await site.keep(session.id, known.file, known.bytes))) todo.push(i);
  }
  // Badges of chunks to write whose codebook parts were kept (the chunk's file went missing): that codebook's records are read again.
  for (const [b, book] of books.entries()) {
    const missing = todo.filter((i) => made[i][b] === undefined);
    if (missing.length === 0) continue;
    const sets = await readSets(book.codebook, book.coders);
    for (const i of missing) made[i][b] = sessionBadges(sessions[i], sets, book.info);
  }
  for (const i of todo) {
    chunkMemo.set(sessions[i].id, chunkInputs[i], await site.chunk(chunkOf(sessions[i], mergeBadges(made[i] as SessionBadges[]))));
    made[i] = [];
  }
  await chunkMemo.save();
  return finishBundle(basename(paths.root), config, base, parts, analysis, readWarnings);
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

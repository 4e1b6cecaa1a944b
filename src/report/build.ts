import { readdir, stat } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { studyPaths } from "../study/study.js";
import { silentReporter, type Reporter } from "../util/reporter.js";
import { finishBundle, shapeCodebookParts, shapeSessionParts, type AnalysisShapes, type CodebookShapes } from "./bundle.js";
import { indexCodes, keepAnalysis, loadCodebooks, noAnalysisFiles, readAnalysisFiles, type CodeSet } from "./load.js";
import { diskReader, type StudyReader } from "../study/reader.js";
import { loadStudyConfig } from "../study/study.js";
import { listCoders } from "../coding/store.js";
import {
  agreementWhole,
  conceptsLines,
  readAgreement,
  shapedText,
  readConcepts,
  readConceptsLines,
  readTopics,
  readTopicsLines,
  topicsLines,
} from "./shape/analysis.js";
import { openLineCache, type LineShaper, type ShapedLines, type WholeShaper } from "./line-cache.js";
import { agreementAnalysis, conceptsAnalysis, topicsAnalysis } from "../analysis/analyses.js";
import type { AnalysisDescriptor } from "../analysis/descriptor.js";
import { chunkOf } from "./shape/overview.js";
import { describeCodebook } from "./shape/common.js";
import { balesFrame } from "./shape/bales.js";
import type { Codebook } from "../coding/codebook/schema.js";
import type { Session } from "../transcript/schema.js";
import { codebookSessionPart, mergeBadges, sessionBadges, sessionPart, type CodebookSessionPart, type SessionPart } from "./shape/parts.js";
import { openSessionMemo } from "../study/session-memo.js";
import { readerDigests } from "../study/code-digests.js";
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
  const { bundle, spliced } = await shapeStudy(study, options.reader ?? diskReader(study), site);
  const t1 = performance.now();
  const result = await site.finish(bundle, spliced);
  const t2 = performance.now();
  for (const w of bundle.warnings) reporter.warn(w);
  return { ...result, warnings: bundle.warnings, timings: { shape: t1 - t0, write: t2 - t1 } };
}

/** The analysis files the build reads by their lines (the views' largest inputs: 25 MB at 100,000 turns). */
const lineShapers = new Map<AnalysisDescriptor<unknown>, LineShaper>([
  [conceptsAnalysis as AnalysisDescriptor<unknown>, conceptsLines],
  [topicsAnalysis as AnalysisDescriptor<unknown>, topicsLines],
]);

/** The analysis files the build shapes whole and keeps so (agreement files: 2.7 MB at 100,000 turns, the same numbers when no human codes were added). */
const wholeShapers = new Map<AnalysisDescriptor<unknown>, WholeShaper>([[agreementAnalysis as AnalysisDescriptor<unknown>, agreementWhole]]);

/**
 * Shape the study a piece at a time (the same bundle as assembleReport): analysis files one by
 * one, each shaped as it is read; then each session's part (summary, speakers, participation,
 * ...); then one codebook's code files at a time, each session's part of them; then each
 * session's chunk, written as it is made. The study-level shapes are merges of the session parts
 * (src/report/shape/parts.ts), and the parts are memoised per session in .cache/memo (keyed by
 * the session's content and the digest of its code records), so a build after one session was
 * added or changed shapes that session only. What stays in memory is the sessions, their parts,
 * the shaped bundle, and each codebook's coders' digests and the badges made, for the chunks to write.
 */
async function shapeStudy(study: string, reader: StudyReader, site: SiteWriter): Promise<{ bundle: ReportBundle; spliced: ShapedLines[] }> {
  const paths = studyPaths(study);
  const config = await loadStudyConfig(study);
  const readWarnings: string[] = [];
  const coders = await listCoders(study);
  const definitions = await loadCodebooks(paths.root, config, Object.keys(coders), readWarnings);
  const analysis: AnalysisShapes = { agreement: [], topics: null, concepts: null, compare: new Map(), files: [], warnings: [] };
  const agreementWarnings: string[] = [];
  const topicsWarnings: string[] = [];
  const conceptsWarnings: string[] = [];
  // concepts.json and topics.json are read by their lines, each shaped once and kept as text (line-cache.ts).
  const lineCache = await openLineCache(study);
  const spliced: ShapedLines[] = [];
  const agreement: ShapedLines = { path: "agreement", texts: [], entries: 0 };
  await readAnalysisFiles(
    paths.root,
    readWarnings,
    (entry) => {
      // Only what the views show of each file is read (AnalysisDescriptor.shown), shaped now, and only the shape kept.
      // The values are partial (kept's types say whole reports): read here only what `shown` names.
      const kept = noAnalysisFiles();
      keepAnalysis(kept, entry);
      analysis.files.push(...kept.files);
      // An agreement file shaped whole comes as the text of its sets (from the cache, or made now),
      // written into the data file as it is (1.6 MB at 100,000 turns, not parsed to be stringified again).
      if (entry.shapedWhole && entry.analysis === agreementAnalysis) {
        agreement.texts.push(entry.shapedWhole.text);
        agreement.entries += entry.shapedWhole.entries;
      } else if (kept.agreement.length > 0) {
        const shaped = shapedText(readAgreement(kept.agreement, agreementWarnings));
        agreement.texts.push(shaped.text);
        agreement.entries += shaped.entries;
      }
      for (const [id, file] of kept.compare) analysis.compare.set(id, file);
      if (kept.topics) {
        analysis.topics = entry.shaped ? readTopicsLines(kept.topics.value, entry.shaped, topicsWarnings) : readTopics(kept.topics, topicsWarnings);
        if (entry.shaped && analysis.topics) spliced.push(entry.shaped);
      }
      if (kept.concepts) {
        analysis.concepts = entry.shaped
          ? readConceptsLines(kept.concepts.value, entry.shaped, conceptsWarnings)
          : readConcepts(kept.concepts, conceptsWarnings);
        if (entry.shaped && analysis.concepts) spliced.push(entry.shaped);
      }
    },
    { shown: true, lines: { shapers: lineShapers, wholes: wholeShapers, cache: lineCache } },
  );
  await lineCache.save();
  spliced.push(agreement);
  analysis.agreementSpliced = agreement.entries;
  analysis.warnings.push(...agreementWarnings, ...topicsWarnings, ...conceptsWarnings);
  const sessions = await reader.sessions();
  const sessionMemo = await openSessionMemo<SessionPart>(study, "report-sessions", {});
  const sessionParts = sessions.map((s) => sessionMemo.get(s.id, s, () => sessionPart(s)));
  await sessionMemo.save();
  const { base, participation } = shapeSessionParts(sessionParts, config.compare.control);
  spliced.push(participation);
  // Each session's badges of each codebook (code set order) for its chunk: their digests always,
  // their text when the part was made now. A kept part has no badges: they are made again for a
  // session whose chunk must be written (badgesFor), which a build that added a session never needs.
  const digests = sessions.map((): string[] => []);
  const made = sessions.map((): (Uint8Array | undefined)[] => []);
  const books: BadgeSource[] = [];
  const parts: CodebookShapes[] = [];
  for (const [codebook, list] of Object.entries(coders)) {
    const definition = definitions.get(codebook) ?? null;
    const { info, sets, facts, inputsOf, memo, balesFrame, digests: coderDigests } = await codebookSets(study, reader, codebook, list, definition, sessions);
    const codebookParts = sessions.map((session, i) =>
      memo.get(
        session.id,
        session,
        () => {
          const { badges, ...part } = codebookSessionPart(session, sets, info, sessionParts[i].sequence.binSize, balesFrame);
          made[i][books.length] = badges;
          return part;
        },
        inputsOf(session),
      ),
    );
    await memo.save();
    codebookParts.forEach((part, i) => digests[i].push(part.badgesDigest));
    books.push({ codebook, coders: list, digests: coderDigests, info });
    parts.push(shapeCodebookParts(info, definition, sets, facts, sessions, codebookParts, base, config, analysis.compare.get(codebook)));
  }
  // A chunk depends on its session and its badges only: one whose file is there from an earlier
  // build with the same inputs is kept without being made again.
  const chunkMemo = await openSessionMemo<{ file: string; bytes: number }>(study, "report-chunks", {});
  const inputsOf = (i: number) => digests[i].join(" ");
  const toWrite: number[] = [];
  for (const [i, session] of sessions.entries()) {
    const known = chunkMemo.find(session.id, session, inputsOf(i));
    if (known === undefined || !(await site.keep(session.id, known.file, known.bytes))) toWrite.push(i);
  }
  await badgesFor(toWrite, books, sessions, made);
  for (const i of toWrite) {
    chunkMemo.set(sessions[i].id, sessions[i], await site.chunk(chunkOf(sessions[i], mergeBadges(made[i] as Uint8Array[]))), inputsOf(i));
    made[i] = [];
  }
  await chunkMemo.save();
  return { bundle: finishBundle(basename(paths.root), config, base, parts, analysis, readWarnings), spliced };
}

/**
 * One codebook's code sets, their facts, the digest of each session's records (the memo's inputs)
 * and its parts' memo. Every view of a codebook is a merge of its session parts (the compare and
 * Bales views join the parts' joins, parts.ts mergeCoded, and pool their kept counts), so the sets hold only the records of
 * sessions whose part must be made: with kept digests (study/code-digests.ts), at 100,000 turns,
 * adding a session reads that session's codes, not the 70 MB of all of them.
 */
async function codebookSets(study: string, reader: StudyReader, codebook: string, coders: string[], definition: Codebook | null, sessions: Session[]) {
  const digests = await Promise.all(coders.map((coder) => readerDigests(reader, codebook, coder)));
  const seen = { codes: new Set(digests.flatMap((d) => [...d.codes])), scales: new Map<string, number>() };
  for (const d of digests) for (const [scale, max] of d.scales) seen.scales.set(scale, Math.max(seen.scales.get(scale) ?? 0, max));
  const info = describeCodebook(codebook, definition, coders, seen);
  const bales = balesFrame(info, definition);
  // The codebook's categories (order, labels, groups), coders and fallback are settings of every part of it.
  const memo = await openSessionMemo<CodebookSessionPart>(study, ["report-codebook", codebook], { info, coders, fallback: bales?.fallback });
  const inputsOf = (session: Session) => digests.map((d) => d.digest(session.id)).join(" ");
  const missing = new Set(sessions.filter((s) => !memo.has(s.id, s, inputsOf(s))).map((s) => s.id));
  const sets: CodeSet[] = [];
  for (const [k, coder] of coders.entries()) sets.push(indexCodes(codebook, coder, missing.size > 0 ? await digests[k].records(missing) : []));
  const facts = digests.map((d, k) => ({ codebook, coder: coders[k], ...d.facts() }));
  return { info, sets, facts, inputsOf, memo, balesFrame: bales, digests };
}

/** What a codebook's badges are made from: its coders, their codes' digests (their records on demand) and its categories. */
interface BadgeSource {
  codebook: string;
  coders: string[];
  digests: Awaited<ReturnType<typeof readerDigests>>[];
  info: CodebookInfo;
}

/**
 * The badges of each codebook that `made` lacks (its part was kept, without them) for the sessions
 * `which`, made again from those sessions' records: the chunks of these sessions must be written
 * (a new site folder, a chunk file gone) although their parts were kept.
 */
async function badgesFor(
  which: readonly number[],
  books: readonly BadgeSource[],
  sessions: readonly Session[],
  made: (Uint8Array | undefined)[][],
): Promise<void> {
  for (const [b, book] of books.entries()) {
    const lacking = which.filter((i) => made[i][b] === undefined);
    if (lacking.length === 0) continue;
    const ids = new Set(lacking.map((i) => sessions[i].id));
    const sets: CodeSet[] = [];
    for (const [k, coder] of book.coders.entries()) sets.push(indexCodes(book.codebook, coder, await book.digests[k].records(ids)));
    for (const i of lacking) made[i][b] = sessionBadges(sessions[i], sets, book.info);
  }
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

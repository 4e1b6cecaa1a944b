import { createConceptExtractor } from "../analysis/concepts/extract.js";
import { emptyLexicon, loadLexicon } from "../analysis/concepts/lexicon.js";
import { buildConceptsParts, conceptsReportOf, writeConceptsParts, type ConceptsReport, type SessionConceptsPart } from "../analysis/concepts/report.js";
import { checkSelection, type SpeakerSelection } from "../analysis/concepts/speakers.js";
import { loadWordClasses, saveWordClasses } from "../analysis/concepts/word-store.js";
import { loadMeanIntervals, saveMeanIntervals } from "../analysis/concepts/interval-store.js";
import { memoNote, openSessionMemo } from "../study/session-memo.js";
import { CliError } from "../util/errors.js";
import { conceptsLexiconPath } from "./concepts-lexicon.js";
import type { StageEffects, StudyContext } from "./context.js";
import { studyCompareOptions } from "./design.js";

/** The concepts stage: noun concepts per turn, participant, session and condition. */
export interface ConceptsStageOptions {
  /** Whose turns count (default: colloquy.json concepts.speakers, else "human"). */
  speakers?: SpeakerSelection;
  /** Lexicon file, relative to the working directory (default: colloquy.json concepts.lexicon, relative to the study). */
  lexicon?: string;
  /** Minutes a concept rate divides by. */
  rateBasis?: "session" | "active";
}

export interface ConceptsSummary {
  report: ConceptsReport;
  files: { json: string; csv: string };
  speakers: SpeakerSelection;
  rateBasis: "session" | "active";
}

export async function runConcepts(context: StudyContext, options: ConceptsStageOptions, effects: StageEffects): Promise<ConceptsSummary> {
  const config = context.config;
  const rateBasis = options.rateBasis ?? config.concepts.rateBasis ?? "session";
  const speakers = options.speakers ?? config.concepts.speakers ?? "human";
  const lexiconPath = conceptsLexiconPath(context, options.lexicon);
  const lexicon = lexiconPath ? await loadLexicon(lexiconPath) : emptyLexicon();
  const sessions = await context.sessions();
  if (sessions.length === 0)
    throw new CliError(`${context.paths.sessions}: no sessions yet; import some with \`colloquy import <files…> --study ${context.dir}\``);
  checkSelection(sessions, speakers);
  const memo = await openSessionMemo<SessionConceptsPart>(context.dir, "concepts", {
    terms: lexicon.terms,
    ignore: [...lexicon.ignore].sort(),
    speakers,
    rateBasis,
  });
  // With earlier runs' answers, compromise is loaded only when a session has a word not seen before.
  await loadWordClasses(context.dir);
  await loadMeanIntervals(context.dir, "concepts");
  const parts = buildConceptsParts(
    sessions,
    createConceptExtractor(lexicon),
    { speakers, rateBasis, compare: studyCompareOptions(context.config, sessions) },
    memo,
  );
  const files = await writeConceptsParts(context.paths.analysis, parts);
  await memo.save();
  await saveWordClasses(context.dir);
  await saveMeanIntervals(context.dir, "concepts");
  effects.log(`concepts: ${sessions.length} session(s)${memoNote(memo)}`);
  return { report: conceptsReportOf(parts), files, speakers, rateBasis };
}

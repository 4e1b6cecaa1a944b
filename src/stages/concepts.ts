import { createConceptExtractor } from "../analysis/concepts/extract.js";
import { emptyLexicon, parseLexicon } from "../analysis/concepts/lexicon.js";
import { readUserText } from "../util/fs.js";
import { conceptsReport, type ConceptsReport } from "../analysis/concepts/report.js";
import { analyseSessionConcepts, type SessionConcepts } from "../analysis/concepts/measures.js";
import { checkSelection, noHumanSpeakers, type SpeakerSelection } from "../analysis/concepts/speakers.js";
import { learntWords } from "../analysis/concepts/tagger.js";
import { writeConceptsReport } from "./analysis-files.js";
import { keepAnswers, memoNote, openMemo, sessionHash } from "../study/memo.js";
import { CliError } from "../util/errors.js";
import { conceptsLexiconPath } from "./concepts-lexicon.js";
import type { StageEffects, StudyContext } from "./context.js";
import { studyCompareOptions } from "./design.js";
import type { Session } from "../transcript/schema.js";
import { withTurns } from "../study/validated-sessions.js";

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
  const lexicon = lexiconPath ? parseLexicon(await readUserText(lexiconPath, "lexicon"), lexiconPath) : emptyLexicon();
  const sessions = await context.sessions();
  if (sessions.length === 0)
    throw new CliError(`${context.paths.sessions}: no sessions yet; import some with \`colloquy import <files…> --study ${context.dir}\``);
  checkSelection(sessions, speakers);
  const noOne = noHumanSpeakers(sessions, speakers, "concepts");
  if (noOne) effects.warn(noOne);
  const memo = await openMemo<SessionConcepts>(context.dir, "concepts", {
    terms: lexicon.terms,
    ignore: [...lexicon.ignore].sort(),
    speakers,
    rateBasis,
  });
  const saveWords = await keepWordClasses(context.dir);
  const extractor = createConceptExtractor(lexicon);
  const analysis = { speakers, rateBasis, compare: studyCompareOptions(context.config, sessions) };
  // Only sessions the memo has no result for are read, a window at a time (their turns let go after
  // it): their vocabulary is learnt in one batch per window (as bench/concepts.ts measures it), then
  // each is analysed. Results stay in study order.
  const results: SessionConcepts[] = [];
  let window: Session[] = [];
  const analyseWindow = () => {
    const kept = window.map((s) => memo.kept(s.id, sessionHash(s)));
    const read = window.flatMap((s, k) => (kept[k] ? [] : [withTurns(s)]));
    extractor.prepare(read.flatMap((s) => s.turns.map((t) => t.text)));
    let next = 0;
    for (const [k, s] of window.entries()) {
      let result = kept[k]?.value;
      if (!result) memo.set(s.id, sessionHash(s), (result = analyseSessionConcepts(read[next++], extractor, analysis)));
      results.push(result);
    }
    window = [];
  };
  for (const session of sessions) {
    window.push(session);
    if (window.length === CONCEPTS_WINDOW) analyseWindow();
  }
  analyseWindow();
  const report = conceptsReport(results, extractor, analysis);
  const files = await writeConceptsReport(context.dir, report);
  await memo.save();
  await saveWords();
  effects.log(`concepts: ${sessions.length} session(s)${memoNote(memo)}`);
  return { report, files, speakers, rateBasis };
}

/** Sessions whose turns are held at once (their vocabulary is learnt in one batch). */
const CONCEPTS_WINDOW = 50;

/** The tagger's word classes of earlier runs: with them, compromise loads only when a session has a word not seen before. */
export function keepWordClasses(study: string): Promise<() => Promise<void>> {
  const { classes, singulars } = learntWords();
  return keepAnswers(study, "word-classes", [classes, singulars]);
}

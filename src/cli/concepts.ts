import { isAbsolute, resolve } from "node:path";
import type { Command } from "commander";
import { createConceptExtractor } from "../analysis/concepts/extract.js";
import { emptyLexicon, loadLexicon } from "../analysis/concepts/lexicon.js";
import { buildConceptsReport, writeConceptsReport } from "../analysis/concepts/report.js";
import { checkSelection, parseSpeakers } from "../analysis/concepts/speakers.js";
import { loadSessions, loadStudyConfig, studyPaths } from "../study/study.js";
import { CliError } from "../util/errors.js";
import { io, printJson } from "./io.js";

interface ConceptsFlags {
  speakers?: string;
  lexicon?: string;
  rate?: string;
  json?: boolean;
}

const fmt = (x: number | null, digits = 2) => (x === null ? "–" : x.toFixed(digits));

/** `colloquy concepts <study>`: noun concepts, production rates, uptake and lexical measures. */
export function registerConcepts(program: Command): void {
  program
    .command("concepts")
    .description("noun concepts per turn, participant, session and condition (rates, first mentions, uptake, MTLD)")
    .argument("<study>", "study folder")
    .option("--speakers <who>", 'whose turns count: "human" (default), "all", or comma-separated names')
    .option("--lexicon <file>", "lexicon of multi-word terms and ignored words (JSON or text with [terms]/[ignore])")
    .option("--rate <basis>", 'minutes a concept rate divides by: "session" (session duration, default) or "active" (participant\'s own span)')
    .option("--json", "print the report as JSON")
    .action(async (study: string, flags: ConceptsFlags) => {
      const config = await loadStudyConfig(study);
      const paths = studyPaths(study);
      const rateBasis = flags.rate ?? config.concepts.rateBasis ?? "session";
      if (rateBasis !== "session" && rateBasis !== "active") throw new CliError(`--rate: "${rateBasis}" is not "session" or "active"`);
      const speakers = parseSpeakers(flags.speakers) ?? config.concepts.speakers ?? "human";
      // A --lexicon path is relative to the working directory; the config's to the study.
      const lexiconPath = flags.lexicon ?? (config.concepts.lexicon ? (isAbsolute(config.concepts.lexicon) ? config.concepts.lexicon : resolve(paths.root, config.concepts.lexicon)) : undefined);
      const lexicon = lexiconPath ? await loadLexicon(lexiconPath) : emptyLexicon();
      const sessions = await loadSessions(study);
      if (sessions.length === 0) throw new CliError(`${paths.sessions}: no sessions yet; import some with \`colloquy import <files…> --study ${study}\``);
      checkSelection(sessions, speakers);
      const report = buildConceptsReport(sessions, createConceptExtractor(lexicon), {
        speakers,
        rateBasis,
        compare: { design: config.compare.design, control: config.compare.control },
      });
      const written = await writeConceptsReport(paths.analysis, report);
      if (flags.json) return printJson(report);
      const out = io().out;
      out(`Concepts (${typeof speakers === "string" ? speakers : speakers.join(", ")} speakers; rate per minute of ${rateBasis === "session" ? "session duration" : "each participant's active span"})`);
      out("session\tcondition\tparticipant\tturns\tconcepts\tunique\tper utt.\tper min\tMTLD\tcohesion");
      for (const s of report.sessions) {
        for (const p of s.participants) {
          out([s.session, s.condition, p.name, p.turns, p.totalConcepts, p.uniqueConcepts, fmt(p.conceptsPerUtterance), p.rate.value === null ? `– (${p.rate.reason})` : fmt(p.rate.value), fmt(p.mtld.mtld, 1), fmt(p.cohesion)].join("\t"));
        }
      }
      for (const c of report.conditions.filter((c) => c.measure === "conceptRate")) {
        out(`\nConcept rate by condition (${c.unit}s):`);
        for (const [cond, s] of Object.entries(c.byCondition)) out(`  ${cond}: mean ${fmt(s.mean)}, SD ${fmt(s.sd)}, n ${s.n}${s.missing ? ` (${s.missing} without times)` : ""}`);
        for (const t of c.tests) {
          out(`  ${t.a} vs ${t.b}: ${t.test} (${c.design}, n = ${t.n}) ${t.skipped ? `not run: ${t.skipped}` : `statistic ${fmt(t.statistic, 3)}, p ${fmt(t.p, 4)}`}`);
        }
      }
      out(`\nWrote ${written.json} and ${written.csv}`);
    });
}

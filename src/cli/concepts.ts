import type { Command } from "commander";
import { studyArgument } from "./study-arg.js";
import { CliError } from "../util/errors.js";
import { io, printJson } from "./io.js";
import { writing } from "./lock.js";

interface ConceptsFlags {
  speakers?: string;
  lexicon?: string;
  rate?: "session" | "active";
  json?: boolean;
}

const fmt = (x: number | null, digits = 2) => (x === null ? "–" : x.toFixed(digits));

/** `colloquy concepts <study>`: noun concepts, production rates, uptake and lexical measures. */
export function registerConcepts(program: Command): void {
  program
    .command("concepts")
    .description("noun concepts per turn, participant, session and condition (rates, first mentions, uptake, MTLD)")
    .addArgument(studyArgument())
    .option("--speakers <who>", 'whose turns count: "human" (default), "all", or comma-separated names')
    .option("--lexicon <file>", "lexicon of multi-word terms and ignored words (JSON or text with [terms]/[ignore])")
    .option("--rate <basis>", 'minutes a concept rate divides by: "session" (session duration, default) or "active" (participant\'s own span)')
    .option("--json", "print the report as JSON")
    .action(async (study: string, flags: ConceptsFlags) =>
      writing(study, "concepts", async () => {
        const { parseSpeakers } = await import("../analysis/concepts/speakers.js");
        const { openStudy } = await import("../stages/context.js");
        const { runConcepts } = await import("../stages/concepts.js");
        const { apaConditionTest, conditionTestName } = await import("../report/apa.js");
        const { describeDesign } = await import("../analysis/shared/design.js");
        if (flags.rate !== undefined && flags.rate !== "session" && flags.rate !== "active")
          throw new CliError(`--rate: "${flags.rate}" is not "session" or "active"`);
        const summary = await runConcepts(
          await openStudy(study),
          { speakers: parseSpeakers(flags.speakers), lexicon: flags.lexicon, rateBasis: flags.rate },
          io().reporter(),
        );
        const { report, speakers, rateBasis, files: written } = summary;
        if (flags.json) return printJson(report);
        const out = io().out;
        out(
          `Concepts (${typeof speakers === "string" ? speakers : speakers.join(", ")} speakers; rate per minute of ${rateBasis === "session" ? "session duration" : "each participant's active span"})`,
        );
        out("session\tcondition\tparticipant\tturns\tconcepts\tunique\tper utt.\tper min\tMTLD\tcohesion");
        for (const s of report.sessions) {
          for (const p of s.participants) {
            out(
              [
                s.session,
                s.condition,
                p.name,
                p.turns,
                p.totalConcepts,
                p.uniqueConcepts,
                fmt(p.conceptsPerUtterance),
                p.rate.value === null ? `– (${p.rate.reason})` : fmt(p.rate.value),
                fmt(p.mtld.mtld, 1),
                fmt(p.cohesion),
              ].join("\t"),
            );
          }
        }
        for (const c of report.conditions.filter((c) => c.measure === "conceptRate")) {
          out(`\nConcept rate by condition (${describeDesign(c)}; ${c.designReason}):`);
          for (const [cond, s] of Object.entries(c.byCondition))
            out(`  ${cond}: mean ${fmt(s.mean)}, SD ${fmt(s.sd)}, n ${s.n}${s.missing ? ` (${s.missing} without times)` : ""}`);
          for (const t of c.tests) {
            out(`  ${t.a} vs ${t.b}: ${conditionTestName(t)} (n = ${t.n}): ${apaConditionTest(t)}${t.note ? ` (${t.note})` : ""}`);
          }
        }
        out(`\nWrote ${written.json} and ${written.csv}`);
      }),
    );
}

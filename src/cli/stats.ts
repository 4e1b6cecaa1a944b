import type { Command } from "commander";
import { join } from "node:path";
import { loadSessions, loadStudyConfig, studyPaths } from "../study/study.js";
import { writeFileAtomic, writeJsonAtomic } from "../util/fs.js";
import { provenance } from "../util/provenance.js";
import { listCoders } from "../coding/store.js";
import { loadCodedStudy, type LoadedCodes } from "../analysis/compare-load.js";
import { buildStats, type StatsReport } from "../analysis/stats-report.js";
import { statsCsvs, statsSummary } from "../analysis/stats-output.js";
import { io, printJson } from "./io.js";

const DEFAULT_CODEBOOK = "bales-ipa";

interface StatsFlags {
  codebook?: string;
  coder?: string;
  json?: boolean;
}

/** `colloquy stats <study>`: session metrics, participation, Bales profiles/phases/transitions, sequences. */
export function registerStats(program: Command): void {
  program
    .command("stats")
    .description("session metrics, participation balance, who-follows-whom, Bales profiles, ratios, phases, transitions and code sequences")
    .argument("<study>", "study folder")
    .option("--codebook <id>", "nominal codebook for the Bales and sequence parts (default bales-ipa)")
    .option("--coder <id>", "whose codes (rules, llm, human:<name>); needed when several coders exist")
    .option("--json", "print the report as JSON")
    .action(async (study: string, flags: StatsFlags) => {
      await loadStudyConfig(study); // a broken colloquy.json should fail here, naming its field
      const sessions = await loadSessions(study);
      let loaded: LoadedCodes | undefined;
      const notes: string[] = [];
      const codebook = flags.codebook ?? DEFAULT_CODEBOOK;
      // Metrics need no codes: without an explicit --codebook, a study not coded yet still gets them.
      // Any other problem (a corrupt codes file, several coders) still fails loudly.
      if (flags.codebook === undefined && flags.coder === undefined && !(await listCoders(study))[DEFAULT_CODEBOOK]) {
        notes.push(`no Bales or sequence analyses: the study has no ${DEFAULT_CODEBOOK} codes yet (run \`colloquy code ${study} --codebook ${DEFAULT_CODEBOOK}\`)`);
        io().reporter().warn(notes[0]);
      } else {
        loaded = await loadCodedStudy(study, codebook, flags.coder, sessions);
      }
      const result = buildStats(sessions, loaded && { data: loaded.data, codebook: loaded.codebook, coder: loaded.coder });
      result.notes.push(...notes);
      for (const v of loaded?.otherVersions ?? []) {
        result.notes.push(`${v.records} code records were made with codebook version ${v.version}, not ${loaded!.codebook.version}; recode them if definitions changed`);
      }
      const report: StatsReport = {
        provenance: provenance({
          command: "stats",
          study: studyPaths(study).root,
          sessions: sessions.length,
          ...(loaded ? { codebook: { id: loaded.codebook.id, version: loaded.codebook.version }, coder: loaded.coder } : {}),
        }),
        ...result,
      };
      const dir = studyPaths(study).analysis;
      const csv = statsCsvs(report);
      await writeJsonAtomic(join(dir, "stats.json"), report);
      await writeFileAtomic(join(dir, "stats-sessions.csv"), csv.sessions);
      await writeFileAtomic(join(dir, "stats-participants.csv"), csv.participants);
      if (flags.json) printJson(report);
      else {
        io().out(statsSummary(report));
        io().out(`\nWrote ${join(dir, "stats.json")}, stats-sessions.csv, stats-participants.csv`);
      }
    });
}

import type { Command } from "commander";
import { join } from "node:path";
import { loadStudyConfig, studyPaths } from "../study/study.js";
import { CliError } from "../util/errors.js";
import { writeFileAtomic, writeJsonAtomic } from "../util/fs.js";
import { provenance } from "../util/provenance.js";
import { compareConditions, type CompareReport } from "../analysis/compare.js";
import { parseMergeList } from "../analysis/compare-mapping.js";
import { loadCodedStudy } from "../analysis/compare-load.js";
import { compareCsvs, compareSummary } from "../analysis/compare-output.js";
import { io, printJson } from "./io.js";

interface CompareFlags {
  codebook: string;
  coder?: string;
  control?: string;
  collapse?: string;
  drop?: string;
  group?: string;
  normaliseRuns?: boolean;
  design?: string;
  unit?: string;
  measure?: string;
  pairBy?: string;
  holm?: boolean;
  json?: boolean;
}

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], flag: string): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw new CliError(`${flag} ${value}: expected one of ${allowed.join(", ")}`);
  return value as T;
}

/** `colloquy compare <study>`: code frequencies, differences from control, and tests between conditions. */
export function registerCompare(program: Command): void {
  program
    .command("compare")
    .description("compare code frequencies across conditions, roles and speakers; % difference from control; Wilcoxon/t/Mann-Whitney/Welch/chi-square tests")
    .argument("<study>", "study folder")
    .option("--codebook <id>", "nominal codebook id or file", "bales-ipa")
    .option("--coder <id>", "whose codes (rules, llm, human:<name>); needed when several coders exist")
    .option("--control <condition>", "condition (or group) the others are compared against")
    .option("--collapse <list>", 'merge codes, e.g. "asks-gives-orientation=asks-orientation+gives-orientation,..."')
    .option("--drop <codes>", "comma-separated codes to leave out (e.g. none)")
    .option("--group <list>", 'merge conditions, e.g. "AI=cond-a+cond-b"')
    .option("--normalise-runs", "compare counts per run in the differences table")
    .option("--no-normalise-runs", "compare raw counts (overrides colloquy.json)")
    .option("--design <design>", "within (paired units) or between (independent units)")
    .option("--unit <unit>", "test unit: participant or session")
    .option("--measure <measure>", "per-unit value: count or proportion")
    .option("--pair-by <key>", "match participants across conditions by name or role")
    .option("--holm", "Holm-adjust p-values within each test family")
    .option("--no-holm", "no Holm adjustment (overrides colloquy.json)")
    .option("--json", "print the report as JSON")
    .action(async (study: string, flags: CompareFlags) => {
      const config = (await loadStudyConfig(study)).compare;
      const loaded = await loadCodedStudy(study, flags.codebook, flags.coder);
      const src = (flag: string, field: string, given: unknown) => (given !== undefined ? flag : `colloquy.json compare.${field}`);
      const result = compareConditions(loaded.data, {
        control: flags.control ?? config.control,
        collapse: flags.collapse !== undefined ? parseMergeList(flags.collapse, "--collapse") : config.collapse,
        drop: flags.drop !== undefined ? flags.drop.split(",").map((d) => d.trim()).filter(Boolean) : config.drop,
        conditionGroups: flags.group !== undefined ? parseMergeList(flags.group, "--group") : config.conditionGroups,
        normaliseByRuns: flags.normaliseRuns ?? config.normaliseByRuns,
        design: oneOf(flags.design, ["within", "between"], "--design") ?? config.design,
        unit: oneOf(flags.unit, ["participant", "session"], "--unit"),
        measure: oneOf(flags.measure, ["count", "proportion"], "--measure"),
        pairBy: oneOf(flags.pairBy, ["name", "role"], "--pair-by"),
        holm: flags.holm ?? config.holm,
        where: {
          collapse: src("--collapse", "collapse", flags.collapse),
          drop: src("--drop", "drop", flags.drop),
          groups: src("--group", "conditionGroups", flags.group),
          control: src("--control", "control", flags.control),
        },
      });
      for (const v of loaded.otherVersions) {
        result.notes.push(`${v.records} code records were made with codebook version ${v.version}, not ${loaded.codebook.version}; recode them if definitions changed`);
      }
      const report: CompareReport = {
        provenance: provenance({
          command: "compare",
          study: studyPaths(study).root,
          codebook: { id: loaded.codebook.id, version: loaded.codebook.version },
          coder: loaded.coder,
          sessions: loaded.sessions.length,
          options: result.options,
        }),
        codebook: { id: loaded.codebook.id, version: loaded.codebook.version },
        coder: loaded.coder,
        ...result,
      };
      const dir = studyPaths(study).analysis;
      const base = `compare-${loaded.codebook.id}`;
      const csv = compareCsvs(report);
      await writeJsonAtomic(join(dir, `${base}.json`), report);
      await writeFileAtomic(join(dir, `${base}-frequencies.csv`), csv.frequencies);
      await writeFileAtomic(join(dir, `${base}-differences.csv`), csv.differences);
      await writeFileAtomic(join(dir, `${base}-tests.csv`), csv.tests);
      if (flags.json) printJson(report);
      else {
        io().out(compareSummary(report));
        io().out(`\nWrote ${join(dir, base)}.json and -frequencies.csv, -differences.csv, -tests.csv`);
      }
    });
}

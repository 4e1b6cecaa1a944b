import type { Command } from "commander";
import { CliError } from "../util/errors.js";
import { io, printJson } from "./io.js";
import { writing } from "./lock.js";
import { selectionFrom, selectionOptions, type SelectionFlags } from "./selection.js";

interface CompareFlags extends SelectionFlags {
  codebook?: string;
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
  selectionOptions(program.command("compare"))
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
    .action(async (study: string, flags: CompareFlags) =>
      writing(study, "compare", async () => {
        const { parseMergeList } = await import("../analysis/compare/mapping.js");
        const { compareSummary } = await import("../analysis/compare/output.js");
        const { openStudy } = await import("../stages/context.js");
        const { runCompare } = await import("../stages/compare.js");
        const { report, files } = await runCompare(
          await openStudy(study),
          {
            codebook: flags.codebook,
            coder: flags.coder,
            control: flags.control,
            collapse: flags.collapse !== undefined ? parseMergeList(flags.collapse, "--collapse") : undefined,
            drop: flags.drop
              ?.split(",")
              .map((d) => d.trim())
              .filter(Boolean),
            conditionGroups: flags.group !== undefined ? parseMergeList(flags.group, "--group") : undefined,
            normaliseByRuns: flags.normaliseRuns,
            design: oneOf(flags.design, ["within", "between"], "--design"),
            unit: oneOf(flags.unit, ["participant", "session"], "--unit"),
            measure: oneOf(flags.measure, ["count", "proportion"], "--measure"),
            pairBy: oneOf(flags.pairBy, ["name", "role"], "--pair-by"),
            holm: flags.holm,
            selection: selectionFrom(flags),
          },
          io().reporter(),
        );
        if (flags.json) printJson(report);
        else {
          io().out(compareSummary(report));
          io().out(`\nWrote ${files.json.replace(/\.json$/, "")}.json and -frequencies.csv, -differences.csv, -tests.csv`);
        }
      }),
    );
}

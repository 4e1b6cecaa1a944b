import type { Command } from "commander";
import { studyArgument } from "./study-arg.js";
import { oneOf } from "../util/did-you-mean.js";
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
  test?: string;
  adjust?: string;
  measure?: string;
  json?: boolean;
}

/** An optional enumerated flag: undefined when not given, else one of `allowed` (with a "did you mean" when not). */
function optionalOneOf<T extends string>(value: string | undefined, allowed: readonly T[], flag: string): T | undefined {
  return value === undefined ? undefined : oneOf(flag, value, allowed);
}

/** `colloquy compare <study>`: code frequencies, differences from control, and tests between conditions. */
export function registerCompare(program: Command): void {
  selectionOptions(program.command("compare"))
    .description(
      "compare code frequencies across conditions, roles and speakers; % difference from control (descriptive); one test per condition and code on the unit of analysis, adjusted for multiplicity",
    )
    .addArgument(studyArgument())
    .option("--codebook <id>", "nominal codebook id or file (default: the first colloquy.json lists that has codes)")
    .option("--coder <id>", "whose codes (rules, llm, human:<name>); needed when several coders exist")
    .option("--control <condition>", "condition (or group) the others are compared against")
    .option("--collapse <list>", 'merge codes, e.g. "asks-gives-orientation=asks-orientation+gives-orientation,..."')
    .option("--drop <codes>", "comma-separated codes to leave out (e.g. none)")
    .option("--group <list>", 'merge conditions, e.g. "AI=cond-a+cond-b"')
    .option("--normalise-runs", "compare counts per run in the differences table")
    .option("--no-normalise-runs", "compare raw counts (overrides colloquy.json)")
    .option("--design <design>", "between (independent units, the default) or within (the same people in several conditions, paired by id)")
    .option("--unit <unit>", "unit of analysis: session (default) or participant (a person, by id)")
    .option(
      "--test <test>",
      "the one test, from the decision table (docs/statistics.md): permutation (default), mann-whitney, welch; within: paired-permutation (default), wilcoxon",
    )
    .option("--adjust <method>", "multiplicity adjustment within each comparison's codes: holm (default), bh or none")
    .option("--measure <measure>", "per-unit value: count (acts per session) or proportion")
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
            inference: {
              design: optionalOneOf(flags.design, ["within", "between"], "--design"),
              unit: optionalOneOf(flags.unit, ["participant", "session"], "--unit"),
              test: optionalOneOf(flags.test, ["permutation", "mann-whitney", "welch", "paired-permutation", "wilcoxon"], "--test"),
              adjust: optionalOneOf(flags.adjust, ["holm", "bh", "none"], "--adjust"),
            },
            measure: optionalOneOf(flags.measure, ["count", "proportion"], "--measure"),
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

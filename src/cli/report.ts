import type { Command } from "commander";
import { studyArgument } from "./study-arg.js";
import { relative } from "node:path";
import { oneOf } from "../util/did-you-mean.js";
import { io } from "./io.js";
import { STDOUT, writeOutput } from "./output.js";
import { writing } from "./lock.js";
import { CliError } from "../util/errors.js";

/** `colloquy report <study>`: the study's method and results as one Markdown or HTML file, plus one CSV per table. */
export function registerReport(program: Command): void {
  program
    .command("report")
    .description("write the study report (sample, coders, reliability, comparisons, topics, concepts) as Markdown or HTML, with one CSV per table")
    .addArgument(studyArgument())
    .option("--format <format>", "md or html (charts as inline SVG)", "md")
    .option("--out <file>", "report file (default <study>/analysis/report.<format>); - prints it (without the CSV tables)")
    .option("--png", "md: also write each figure as PNG at 300 dpi for an 85 mm column (drawn by Chromium) and link the PNGs")
    .option("--shared-scales", "figures of the same quantity on one value scale (e.g. the share of acts per code in every codebook)")
    .action(async (study: string, flags: { format: string; out?: string; png?: boolean; sharedScales?: boolean }) => {
      const { openStudy } = await import("../stages/context.js");
      const { runReport } = await import("../stages/report.js");
      const format = oneOf("--format", flags.format, ["md", "html"] as const);
      if (flags.png && format !== "md") throw new CliError("--png is for the Markdown report (--format md); the HTML report draws its figures inline as SVG.");
      if (flags.png && flags.out === STDOUT) throw new CliError("--png writes figure files beside the report: give --out a file, not -.");
      const options = { format, figures: flags.out !== STDOUT, png: flags.png, sharedScales: flags.sharedScales };
      const report = (out?: string) => writing(study, "report", async () => runReport(await openStudy(study), { ...options, out }, io().reporter()));
      const { result: summary, streamed, say } = await writeOutput(flags.out, report);
      if (streamed) return say(`(the report went to ${flags.out}; its ${summary.tables.length} CSV table(s) are written only beside a report file)`);
      io().out(`Wrote ${relative(process.cwd(), summary.file) || summary.file}`);
      io().out(`  ${summary.tables.length} table(s) as CSV in ${relative(process.cwd(), summary.tablesDir) || summary.tablesDir}`);
    });
}

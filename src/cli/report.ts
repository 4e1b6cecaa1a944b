import type { Command } from "commander";
import { relative } from "node:path";
import { CliError } from "../util/errors.js";
import { io } from "./io.js";
import { writing } from "./lock.js";

/** `colloquy report <study>`: the study's method and results as one Markdown or HTML file, plus one CSV per table. */
export function registerReport(program: Command): void {
  program
    .command("report")
    .description("write the study report (sample, coders, reliability, comparisons, topics, concepts) as Markdown or HTML, with one CSV per table")
    .argument("<study>", "study folder")
    .option("--format <format>", "md or html (charts as inline SVG)", "md")
    .option("--out <file>", "report file (default <study>/analysis/report.<format>)")
    .action(async (study: string, flags: { format: string; out?: string }) => {
      const { openStudy } = await import("../stages/context.js");
      const { runReport } = await import("../stages/report.js");
      if (flags.format !== "md" && flags.format !== "html") throw new CliError(`--format ${flags.format}: expected md or html`);
      const format = flags.format;
      const summary = await writing(study, "report", async () => runReport(await openStudy(study), { format, out: flags.out }, io().reporter()));
      io().out(`Wrote ${relative(process.cwd(), summary.file) || summary.file}`);
      io().out(`  ${summary.tables.length} table(s) as CSV in ${relative(process.cwd(), summary.tablesDir) || summary.tablesDir}`);
    });
}

import { dirname } from "node:path";
import type { Command } from "commander";
import { studyArgument } from "./study-arg.js";
import type { TableKind } from "../stages/tables.js";
import { CliError } from "../util/errors.js";
import { oneOf } from "../util/did-you-mean.js";
import { writeFileAtomic, writeJsonAtomic } from "../util/fs.js";
import { portableStudyPath, provenance, toolVersion } from "../util/provenance.js";
import { io } from "./io.js";
import { STDOUT, writeOutput } from "./output.js";
import { describeOptionLater } from "./lazy-help.js";

interface ExportFlags {
  format: string;
  out?: string;
  codes?: boolean;
  what: string;
  excel?: boolean;
  crlf?: boolean;
  codebook?: string;
}

const FORMATS = ["csv", "jsonl", "parquet", "qdpx", "qdc"];

/** `colloquy export <study>`: tables for R, SPSS, Stata, Excel and pandas, or REFI-QDA files for QDA tools. */
export function registerExport(program: Command): void {
  const command = program
    .command("export")
    .description("export tables (turns, codes long or wide, per-participant and per-session summaries) or REFI-QDA projects and codebooks")
    .addArgument(studyArgument())
    .option("--format <format>", "csv, jsonl, parquet, qdpx (a REFI-QDA project for NVivo, ATLAS.ti, MAXQDA, QualCoder) or qdc (a REFI-QDA codebook)", "csv")
    .option("--out <file>", "write to a file (default: stdout); a <file>.provenance.json is written next to it, and for tables a <file>.dictionary.csv")
    .option("--what <rows>", "tables (see `colloquy export --help`)", "turns")
    .option("--codes", "turns: add one column per codebook and coder with each turn's code(s)")
    .option(
      "--excel",
      "csv: start with a UTF-8 byte-order mark so Excel reads accents correctly (texts are written verbatim: a cell starting with = + - @ is a formula to Excel; import the file as text if transcripts may contain such turns)",
    )
    .option("--crlf", "qdpx: write the sources with CRLF line breaks (MAXQDA counts positions over them)")
    .option("--codebook <id>", "qdc: the codebook to export (the study's own, a shipped id or a file; default: the first colloquy.json lists)")
    .action(async (dir: string, flags: ExportFlags) => {
      // `--out -` is standard output, as no --out is.
      if (flags.out === STDOUT) flags.out = undefined;
      const { openStudy } = await import("../stages/context.js");
      const { dictionaryCsv, tableCsv, tableJsonl, tableParquet } = await import("../stages/table-files.js");
      const { buildTable, tableKinds } = await import("../stages/tables.js");
      oneOf("--format", flags.format, FORMATS);
      if (flags.format === "qdpx" || flags.format === "qdc") {
        await exportQda(dir, flags);
        return;
      }
      const what: TableKind = oneOf("--what", flags.what, tableKinds);
      const table = await buildTable(await openStudy(dir), what, { codes: flags.codes });
      const columns = table.columns.map((c) => c.name);
      if (flags.format === "parquet" && !flags.out) throw new CliError("--format parquet writes a binary file: give --out <file.parquet>");
      const body =
        flags.format === "parquet" ? tableParquet(table, `colloquy ${toolVersion}`) : flags.format === "csv" ? tableCsv(table, flags.excel) : tableJsonl(table);
      if (!flags.out) return io().out(body as string);
      // A device (/dev/null) gets the table alone: no /dev/null.dictionary.csv beside it.
      const { streamed } = await writeOutput(flags.out, async (out) => {
        await writeFileAtomic(out, body);
        await writeFileAtomic(`${out}.dictionary.csv`, dictionaryCsv(table));
        await writeJsonAtomic(
          `${out}.provenance.json`,
          provenance({ command: "export", study: portableStudyPath(dir, dirname(out)), what, format: flags.format, rows: table.rows.length, columns }),
        );
      });
      io().out(`Wrote ${table.rows.length} ${ROW_NAMES[what]} row(s) to ${flags.out}${streamed ? "" : ` (data dictionary: ${flags.out}.dictionary.csv)`}`);
    });
  describeOptionLater(
    command,
    "--what",
    async () =>
      `tables: ${(await import("../stages/tables.js")).tableKinds.join(", ")} (turns: one row per turn; codes: one row per turn x codebook x coder; wide: one row per turn, a column per coder and scale; participants, sessions: summaries)`,
  );
}

const ROW_NAMES: Record<TableKind, string> = { turns: "turn", codes: "code record", wide: "turn", participants: "participant", sessions: "session" };

/** --format qdpx / qdc: REFI-QDA files, written next to a provenance file. */
async function exportQda(dir: string, flags: ExportFlags): Promise<void> {
  const { openStudy } = await import("../stages/context.js");
  const { exportQdc, exportQdpx } = await import("../stages/qda-export.js");
  if (flags.format === "qdc") {
    const { chooseCodebook } = await import("../stages/codebook-choice.js");
    const ref = await chooseCodebook(await openStudy(dir), flags.codebook, { command: "export --format qdc" });
    const { xml, codebook } = await exportQdc(dir, ref);
    if (!flags.out) {
      io().out(xml);
      return;
    }
    await writeOutput(flags.out, async (out) => {
      await writeFileAtomic(out, xml);
      await writeJsonAtomic(
        `${out}.provenance.json`,
        provenance({
          command: "export",
          study: portableStudyPath(dir, dirname(out)),
          format: "qdc",
          codebook: codebook.id,
          codebookVersion: codebook.version,
        }),
      );
    });
    io().out(`Wrote codebook ${codebook.id} v${codebook.version} to ${flags.out}`);
    return;
  }
  if (!flags.out) throw new CliError("--format qdpx writes a zip file: give --out <file.qdpx>");
  const result = await exportQdpx(await openStudy(dir), { crlf: flags.crlf });
  const { bytes: _bytes, ...summary } = result;
  await writeOutput(flags.out, async (out) => {
    await writeFileAtomic(out, result.bytes);
    await writeJsonAtomic(
      `${out}.provenance.json`,
      provenance({ command: "export", study: portableStudyPath(dir, dirname(out)), format: "qdpx", crlf: Boolean(flags.crlf), ...summary }),
    );
  });
  io().out(
    `Wrote ${flags.out}: ${result.sessions} session(s) as text sources, codebook(s) ${result.codebooks.join(", ") || "none"}, ${result.codings} coding(s) by ${result.coders.join(", ") || "no coder"}`,
  );
  for (const w of result.warnings.slice(0, 10)) io().out(`  warning: ${w}`);
  for (const s of result.skipped.slice(0, 10)) io().out(`  not exported: ${s}`);
  if (result.skipped.length > 10) io().out(`  … and ${result.skipped.length - 10} more (listed in ${flags.out}.provenance.json)`);
}

import type { Command } from "commander";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { ImportSummary } from "../stages/import.js";
import type { QdpxImportSummary } from "../stages/qda-import.js";
import { CliError } from "../util/errors.js";
import { provenance } from "../util/provenance.js";
import { io, printJson } from "./io.js";
import { describeOptionLater } from "./lazy-help.js";
import { writing } from "./lock.js";

interface ImportFlags {
  study: string;
  format?: string;
  encoding?: string;
  pathPattern?: string;
  condition?: string;
  run?: string;
  splitContinuations?: boolean;
  mergeCues?: boolean;
  columns?: string;
  codeColumn?: string[];
  codebook?: string;
  agents?: string[];
  humans?: string[];
  delimiter?: string;
  promptsAs?: "system" | "metadata";
  json?: boolean;
}

const collect = (value: string, previous: string[] = []): string[] => [
  ...previous,
  ...value
    .split(",")
    .map((v) => v.trim())
    .filter(Boolean),
];

/** "speaker=name,text=message" -> { speaker: "name", text: "message" }. */
export function parseAssignments(flag: string, items: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of items) {
    const at = item.indexOf("=");
    if (at <= 0 || at === item.length - 1)
      throw new CliError(`${flag} "${item}": expected name=value, e.g. ${flag === "--columns" ? "speaker=name,text=message" : "ipa_code=alice"}`);
    out[item.slice(0, at).trim()] = item.slice(at + 1).trim();
  }
  return out;
}

/** `colloquy import <files or folders…> --study <study>`: transcripts in any supported format into the study. */
export function registerImport(program: Command): void {
  const command = program
    .command("import")
    .description(
      "import transcripts (files or folders) into a study; the format is detected from content and extension. A REFI-QDA project (.qdpx, from NVivo, ATLAS.ti, MAXQDA, QualCoder) brings its codes and coders too",
    )
    .argument("<paths...>", "files or folders (folders are searched recursively)")
    .requiredOption("--study <study>", "study folder (created if missing)")
    .option("--format <name>", "force a format (see `colloquy import --help`)")
    .option("--encoding <name>", "decode every file with this encoding, e.g. windows-1252, utf-16le (default: detected; see the README)")
    .option("--path-pattern <pattern>", 'metadata from each path, e.g. "{condition}/{run}/*"')
    .option("--condition <name>", "condition of every imported session")
    .option("--run <n>", "run of every imported session")
    .option("--split-continuations", "slack-paste: a bare h:mm line starts its own turn")
    .option("--merge-cues", "vtt/srt: merge consecutive cues of one speaker")
    .option(
      "--columns <map>",
      "csv: field=column pairs, e.g. speaker=name,text=message,time=time_stamp,session=run; session=condition+run joins columns into the session key",
    )
    .option("--code-column <col=coder>", "csv: a column of codes and its coder (repeatable or comma-separated)", collect)
    .option(
      "--codebook <id>",
      "codebook the imported code labels belong to (default: the first nominal codebook colloquy.json lists); .qdpx: an existing codebook to map the project's codes onto by label, or the id of the codebook made of them",
    )
    .option("--agents <names>", "speaker names that are AI agents (comma-separated; every format)", collect)
    .option("--humans <names>", "speaker names that are people, whatever the format says (comma-separated)", collect)
    .option("--delimiter <char>", "csv: force the delimiter")
    .option("--prompts-as <where>", "round-based logs: prompts as system turns or metadata (system|metadata)")
    .option("--json", "print the report as JSON")
    .action(async (paths: string[], flags: ImportFlags) => {
      const projects = paths.filter(isQdpx);
      if (projects.length > 0 && projects.length < paths.length) throw new CliError("import REFI-QDA projects (.qdpx) on their own, in a command of their own");
      if (projects.length > 0) {
        await writing(flags.study, "import", () => importProjects(projects, flags), { create: true });
        return;
      }
      await writing(flags.study, "import", () => importCommand(paths, flags), { create: true });
    });
  describeOptionLater(command, "--format", async () => `force a format: ${(await import("../ingest/registry.js")).importers.map((i) => i.name).join(", ")}`);
}

async function importCommand(paths: string[], flags: ImportFlags): Promise<void> {
  const { initStudy, studyPaths } = await import("../study/study.js");
  const { openStudy } = await import("../stages/context.js");
  const { runImport } = await import("../stages/import.js");
  const { listedLine } = await import("../stages/human-coders.js");
  const study = flags.study;
  const created = !existsSync(studyPaths(study).config);
  await initStudy(study);
  const context = await openStudy(study);
  if (flags.promptsAs && flags.promptsAs !== "system" && flags.promptsAs !== "metadata")
    throw new CliError(`--prompts-as "${flags.promptsAs}": expected system or metadata`);
  const codeColumns = Object.fromEntries(
    Object.entries(parseAssignments("--code-column", flags.codeColumn ?? [])).map(([col, coder]) => [col, coder.includes(":") ? coder : `human:${coder}`]),
  );
  const summary = await runImport(
    context,
    {
      paths,
      format: flags.format,
      encoding: flags.encoding,
      pathPattern: flags.pathPattern,
      condition: flags.condition,
      run: flags.run,
      splitContinuations: flags.splitContinuations,
      mergeCues: flags.mergeCues,
      columns: flags.columns ? parseAssignments("--columns", collect(flags.columns)) : undefined,
      codeColumns,
      codebook: flags.codebook,
      delimiter: flags.delimiter === "\\t" || flags.delimiter === "tab" ? "\t" : flags.delimiter,
      promptsAs: flags.promptsAs,
      agents: flags.agents,
      humans: flags.humans,
    },
    io().reporter(),
  );
  printReport(summary, flags, created ? study : undefined, listedLine);
  if (summary.failed > 0) {
    const others = summary.imported > 0 ? ` (the other ${summary.imported} were imported)` : "";
    throw new CliError(`${summary.failed} of ${summary.inputs} input(s) failed to import${others}; fix them and run the same command again`);
  }
}

function printReport(result: ImportSummary, flags: ImportFlags, createdStudy: string | undefined, listedLine: (coder: string) => string): void {
  const { files: reports, ...summary } = result;
  if (flags.json) {
    printJson({ provenance: provenance({ command: "import" }), study: resolve(flags.study), files: reports, summary });
    return;
  }
  const out = io().out;
  if (createdStudy) out(`Created study ${createdStudy}`);
  for (const r of reports) {
    if (r.skipped) out(`- ${r.path}: skipped (${r.error})`);
    // Errors name their file (with a line where known): print the path once.
    else if (r.error) out(`✗ ${r.error.startsWith(r.path) ? r.error : `${r.path}: ${r.error}`}`);
    else
      out(
        `✓ ${r.path} [${r.format}]: ${r.sessions.length} session(s) (${r.sessions.join(", ")}), ${r.turns} turns${r.codes ? `, ${r.codes} codes` : ""}${r.codesMoved ? `, ${r.codesMoved} code(s) followed their turn` : ""}${r.codesStale ? `, ${r.codesStale} code(s) now stale` : ""}${r.warnings.length ? `, ${r.warnings.length} warning(s)` : ""}`,
      );
    for (const w of r.warnings) out(`    warning: ${w}`);
  }
  out(
    `Imported ${summary.sessions} session(s), ${summary.turns} turns from ${summary.imported} of ${summary.inputs} input(s)` +
      (summary.codes ? `, ${summary.codes} codes` : "") +
      (summary.codesMoved ? `; ${summary.codesMoved} code(s) followed their edited turns` : "") +
      (summary.codesStale ? `; ${summary.codesStale} code(s) stale (their turn changed or was removed)` : "") +
      (summary.failed ? `; ${summary.failed} failed` : "") +
      (summary.skipped ? `; ${summary.skipped} skipped` : "") +
      (summary.warnings ? `; ${summary.warnings} warning(s)` : ""),
  );
  for (const coder of summary.listed) out(listedLine(coder));
}

const isQdpx = (path: string) => /\.qdpx$/i.test(path);

/** `colloquy import project.qdpx --study <dir>`: REFI-QDA projects from NVivo, ATLAS.ti, MAXQDA, QualCoder. */
async function importProjects(files: string[], flags: ImportFlags): Promise<void> {
  const { initStudy } = await import("../study/study.js");
  const { openStudy } = await import("../stages/context.js");
  const { runQdpxImport } = await import("../stages/qda-import.js");
  const { listedLine } = await import("../stages/human-coders.js");
  await initStudy(flags.study);
  const context = await openStudy(flags.study);
  const summaries = [];
  for (const file of files) {
    const summary = await runQdpxImport(context, { file, codebook: flags.codebook }, io().reporter());
    summaries.push(summary);
    // Said as each project is imported: a later project that fails must not leave this one's
    // sessions, codes and colloquy.json listings (codebooks, humanCoders) unsaid.
    if (!flags.json) printProject(summary, listedLine);
  }
  if (flags.json) printJson({ provenance: provenance({ command: "import" }), study: resolve(flags.study), projects: summaries });
}

/** What one project brought into the study. */
function printProject(s: QdpxImportSummary, listedLine: (coder: string) => string): void {
  const out = io().out;
  const created = s.sessions.filter((x) => x.status === "created").length;
  out(
    `✓ ${s.file} [qdpx]: ${created} new session(s), ${s.sessions.length - created} already in the study; codebook(s) ${s.codebooks.map((c) => `${c.id}${c.status === "written" ? " (written to codebooks/)" : ""}${s.registered.includes(c.id) ? " (listed in colloquy.json)" : ""}`).join(", ") || "none"}; ${s.codes} code record(s) by ${s.coders.join(", ") || "nobody"}`,
  );
  const c = s.codings;
  out(
    `    codings: ${c.read} read, ${c.stored} stored with their ranges${c.duplicates ? ` (${c.duplicates} repeating another of the same user, code and range, stored once)` : ""}, ${s.problems.length} not stored; positions read as ${s.positions.unit === "utf16" ? "UTF-16 units" : "code points"} (${s.positions.reason})`,
  );
  if (s.automaticSkipped)
    out(`    ${s.automaticSkipped} coding(s) by Colloquy's automatic coders on sessions the study has were skipped (the study has its own)`);
  for (const coder of s.listed) out(`    ${listedLine(coder)}`);
  for (const w of s.warnings) out(`    warning: ${w}`);
  for (const p of s.problems) out(`    not stored: ${p.source} [${p.start}, ${p.end})${p.code ? ` "${p.code}"` : ""}: ${p.reason}`);
}

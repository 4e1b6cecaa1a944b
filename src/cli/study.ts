import type { Command } from "commander";
import { studyArgument } from "./study-arg.js";
import { existsSync } from "node:fs";
import { join, relative } from "node:path";
import { CliError } from "../util/errors.js";
import { didYouMean, oneOf } from "../util/did-you-mean.js";
import { stageNames, type PipelineOptions, type StageName } from "../pipeline/types.js";
import { io, printJson } from "./io.js";
import { writing } from "./lock.js";

export interface StudyFlags {
  serve?: boolean;
  port?: string;
  host?: string;
  open?: boolean;
  coder?: string;
  model?: string;
  baseUrl?: string;
  only?: string;
  force?: string | boolean;
  json?: boolean;
}

function stageList(value: string, flag: string): StageName[] {
  const names = value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = names.filter((n) => !(stageNames as readonly string[]).includes(n));
  if (bad.length)
    throw new CliError(`${flag}: unknown stage ${bad.map((b) => `"${b}"`).join(", ")}; stages are ${stageNames.join(", ")}${didYouMean(bad[0], stageNames)}`);
  return names as StageName[];
}

/** Parse the pipeline flags shared by `colloquy study` and `colloquy demo`. */
export function pipelineOptions(flags: StudyFlags): PipelineOptions {
  return {
    coder: flags.coder === undefined ? undefined : oneOf("--coder", flags.coder, ["rules", "llm"] as const),
    model: flags.model,
    baseUrl: flags.baseUrl,
    only: flags.only ? stageList(flags.only, "--only") : undefined,
    force: flags.force === true ? true : typeof flags.force === "string" ? stageList(flags.force, "--force") : undefined,
  };
}

/** Run the pipeline (holding the study's writer lock), print where the results are, and serve when asked (without it). */
export async function runStudy(dir: string, flags: StudyFlags): Promise<void> {
  const { studyPaths } = await import("../study/study.js");
  const { runPipeline } = await import("../pipeline/run.js");
  const { studyStages } = await import("../pipeline/stages.js");
  const paths = studyPaths(dir);
  if (!existsSync(paths.root)) throw new CliError(`${paths.root}: no such study folder. Create one with \`colloquy init ${dir}\`.`);
  const { stages: outcomes, filesRead, warnings } = await writing(dir, "study", () => runPipeline(dir, studyStages, pipelineOptions(flags), io().reporter()));
  warnings.push(...(await staleReports(paths.analysis, dir)));
  for (const warning of warnings) io().err(`warning: ${warning}`);
  if (flags.json) printJson({ study: paths.root, stages: outcomes, filesRead, warnings });
  else {
    const ran = outcomes.filter((o) => o.status === "ran").length;
    const skipped = outcomes.filter((o) => o.status === "skipped").length;
    io().out(`Done: ${ran} stage(s) ran, ${skipped} skipped.`);
    io().out(`  sessions: ${relative(process.cwd(), paths.sessions) || paths.sessions}`);
    io().out(`  codes:    ${relative(process.cwd(), paths.codes) || paths.codes}`);
    io().out(`  analysis: ${relative(process.cwd(), paths.analysis) || paths.analysis}`);
    io().out(`  site:     ${relative(process.cwd(), join(paths.site, "index.html"))}`);
  }
  if (flags.serve)
    await (await import("./serve.js")).serveDashboard(dir, { port: flags.port ?? "5173", host: flags.host ?? "127.0.0.1", open: flags.open, build: false });
}

/**
 * `colloquy report` writes analysis/report.md (or .html) once, from the analysis files as they
 * were: one older than an analysis file would be pasted into a paper with numbers the study no
 * longer has. The pipeline does not write it (a report is the researcher's deliberate step).
 */
async function staleReports(analysis: string, dir: string): Promise<string[]> {
  const { readdir, stat } = await import("node:fs/promises");
  const names = await readdir(analysis).catch(() => [] as string[]);
  const reports = names.filter((n) => n === "report.md" || n === "report.html");
  // Only a study with a report pays for reading the analysis files' times (JSON.parse of each).
  if (reports.length === 0) return [];
  const newest = Math.max(0, ...(await Promise.all(names.filter((n) => n.endsWith(".json")).map((n) => computedAt(join(analysis, n))))));
  const stale: string[] = [];
  for (const report of reports)
    if ((await stat(join(analysis, report))).mtimeMs < newest)
      stale.push(`analysis/${report} was written before the analyses it reports changed; run \`colloquy report ${dir}\` again before using it`);
  return stale;
}

/**
 * When an analysis file's numbers were computed: its provenance.createdAt, not the file's mtime,
 * which a copy, a git checkout or an unzip sets in whatever order it writes the files (a current
 * report.md copied before stats.json would read as older than it). The mtime for a file without one.
 */
async function computedAt(file: string): Promise<number> {
  const { readFile, stat } = await import("node:fs/promises");
  try {
    const created = Date.parse((JSON.parse(await readFile(file, "utf8")) as { provenance?: { createdAt?: string } }).provenance?.createdAt ?? "");
    if (Number.isFinite(created)) return created;
  } catch {
    // Not JSON of ours: its mtime below.
  }
  return (await stat(file)).mtimeMs;
}

/** Options shared by `study` and `demo`. */
export function addPipelineOptions(command: Command): Command {
  return command
    .option("--serve", "serve the dashboard when done (Ctrl-C to stop)")
    .option("--port <port>", "first port to try when serving", "5173")
    .option("--host <host>", "interface to bind when serving", "127.0.0.1")
    .option("--open", "open the dashboard in the browser")
    .option("--coder <coder>", "machine coder for every codebook and for topics: rules (offline) or llm")
    .option("--model <name>", "model for the llm coder")
    .option("--base-url <url>", "OpenAI-compatible endpoint for the llm coder, e.g. http://localhost:11434/v1")
    .option("--only <stages>", `run only these stages (comma-separated: ${stageNames.join(", ")})`)
    .option("--force [stages]", "redo stages even when unchanged (all, or comma-separated names)")
    .option("--json", "print the stage outcomes as JSON");
}

/** `colloquy study <study>`: the whole pipeline, redoing only what changed. */
export function registerStudy(program: Command): void {
  addPipelineOptions(
    program
      .command("study")
      .description(
        "run the whole pipeline on a study: import inbox/ -> code -> agree -> compare -> stats -> topics -> concepts -> dashboard (only what changed)",
      )
      .addArgument(studyArgument({ description: "study folder (see `colloquy init`)" })),
  ).action(async (dir: string, flags: StudyFlags) => runStudy(dir, flags));
}

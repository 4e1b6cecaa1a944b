import type { Command } from "commander";
import { cp, readdir, rm } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { addPipelineOptions, runStudy, type StudyFlags } from "./study.js";
import { io } from "./io.js";
import { writing } from "./lock.js";
import { packageRoot } from "../util/package-root.js";

/** The bundled demo study, in the colloquy package. */
export function demoStudySource(): string {
  const dir = join(packageRoot(), "fixtures", "demo-study");
  if (existsSync(join(dir, "colloquy.json"))) return dir;
  throw new Error(`the bundled demo study was not found: no ${join(dir, "colloquy.json")}`);
}

/**
 * `colloquy demo`: copy the bundled synthetic demo study to a working folder (once), run the
 * whole pipeline on it with the offline coders, and optionally serve the dashboard. A second
 * run finds nothing changed and skips every stage. `--fresh` starts again from a new copy.
 */
export function registerDemo(program: Command): void {
  addPipelineOptions(
    program
      .command("demo")
      .description("run the whole pipeline on the bundled demo study (synthetic data, offline) and optionally serve the dashboard")
      .option("--dir <dir>", "working copy of the demo study", ".demo")
      .option("--fresh", "start again from a fresh copy of the demo study"),
  ).action(async (flags: StudyFlags & { dir: string; fresh?: boolean }) => {
    const dir = resolve(flags.dir);
    await writing(dir, "demo", () => copyDemo(dir, flags.fresh), { create: true });
    await runStudy(dir, { ...flags, coder: flags.coder ?? "rules" });
  });
}

/** Copy the demo study into `dir` (held locked) once; `fresh` empties it first, all but the lock. */
async function copyDemo(dir: string, fresh: boolean | undefined): Promise<void> {
  const { artifacts } = await import("../study/artifacts.js");
  if (!fresh && existsSync(join(dir, "colloquy.json"))) return;
  if (fresh) {
    for (const entry of await readdir(dir)) if (entry !== artifacts.lock.file()) await rm(join(dir, entry), { recursive: true, force: true });
  }
  await cp(demoStudySource(), dir, { recursive: true });
  io().out(`Copied the demo study (synthetic data) to ${dir}`);
}

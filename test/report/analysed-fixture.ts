import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeDashboardFixture } from "../../fixtures/dashboard/generate.js";
import { runCli } from "../support/cli.js";

/**
 * The dashboard fixture study with its hand-written analysis files replaced by what the real
 * commands write: each of `commands` is run on the study (its folder is the second argument).
 */
export async function analysedFixture(prefix: string, commands: readonly (readonly string[])[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  await writeDashboardFixture(dir);
  for (const f of await readdir(join(dir, "analysis"))) await rm(join(dir, "analysis", f));
  for (const [command, ...rest] of commands) {
    const run = await runCli([command, dir, ...rest]);
    if (run.code !== 0) throw new Error(`colloquy ${command} failed: ${run.stderr}`);
  }
  return dir;
}

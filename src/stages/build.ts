import { buildSite, type BuildResult } from "../report/build.js";
import { readCodes } from "../coding/store.js";
import { currentCodes, type StudyReader } from "../study/reader.js";
import type { StageEffects, StudyContext } from "./context.js";

/** The build stage: the static dashboard site (default <study>/site). */
export interface BuildStageOptions {
  out?: string;
  /**
   * The build runs alone (`colloquy build`): read each code file when its codebook is shaped and
   * let it go, instead of through the context, which keeps every file for later stages. Memory
   * is then bounded by the largest codebook's records, not all of them (issue 11: <= 300 MB at
   * 100,000 turns). In the pipeline, the records earlier stages loaded are reused instead.
   */
  alone?: boolean;
}

export async function runBuild(context: StudyContext, options: BuildStageOptions, effects: StageEffects): Promise<BuildResult> {
  const reader: StudyReader = options.alone
    ? {
        sessions: () => context.sessions(),
        codes: async (codebook, coder) => currentCodes(await readCodes(context.dir, codebook, coder), await context.sessions()),
      }
    : context;
  // Warnings (unreadable analysis files, unknown codebooks) go through the effects, once.
  return buildSite(context.dir, { out: options.out, reporter: effects, reader });
}

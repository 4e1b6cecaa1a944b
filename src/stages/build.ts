import { buildSite, type BuildResult } from "../report/build.js";
import { readCodes } from "../coding/store.js";
import { currentCodes, type StudyReader } from "../study/reader.js";
import type { StageEffects, StudyContext } from "./context.js";

/** The build stage: the static dashboard site (default <study>/site). */
export interface BuildStageOptions {
  out?: string;
  /**
   * The build runs alone (`colloquy build`): read each code file when its codebook is shaped and
   * let it go, never through the context. In the pipeline, the records earlier stages loaded are
   * reused, and those they did not are read and let go the same way: memory is bounded by one
   * codebook's records beyond what the context holds (issue 40).
   */
  alone?: boolean;
}

export async function runBuild(context: StudyContext, options: BuildStageOptions, effects: StageEffects): Promise<BuildResult> {
  const reader: StudyReader = options.alone
    ? {
        sessions: () => context.sessions(),
        codes: async (codebook, coder) => currentCodes(await readCodes(context.dir, codebook, coder), await context.sessions()),
      }
    : { sessions: () => context.sessions(), codes: (codebook, coder) => context.codes(codebook, coder, { keep: false }) };
  // Warnings (unreadable analysis files, unknown codebooks) go through the effects, once.
  return buildSite(context.dir, { out: options.out, reporter: effects, reader });
}

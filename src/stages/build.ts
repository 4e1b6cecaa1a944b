import { buildSite, type BuildResult } from "../report/build.js";
import type { StageEffects, StudyContext } from "./context.js";

/** The build stage: the static dashboard site (default <study>/site). */
export interface BuildStageOptions {
  out?: string;
}

export async function runBuild(context: StudyContext, options: BuildStageOptions, effects: StageEffects): Promise<BuildResult> {
  // Warnings (unreadable analysis files, unknown codebooks) go through the effects, once.
  return buildSite(context.dir, { out: options.out, reporter: effects, reader: context });
}

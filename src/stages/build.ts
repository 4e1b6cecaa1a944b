import { buildSite, type BuildResult } from "../report/build.js";
import { heldSessions } from "../report/sessions.js";
import type { StageEffects, StudyContext } from "./context.js";

/** The build stage: the static dashboard site (default <study>/site). */
export interface BuildStageOptions {
  out?: string;
  /**
   * The build runs alone (`colloquy build`): it reads the sessions from their files, one whole at
   * a time, and each code file when its codebook is shaped, letting them go (report/sessions.ts),
   * never through the context. In the pipeline, the sessions and code values earlier stages loaded
   * are reused (each codes file is parsed once a run), and those they did not load are read for the
   * build and let go after their codebook (issue 40).
   */
  alone?: boolean;
}

export async function runBuild(context: StudyContext, options: BuildStageOptions, effects: StageEffects): Promise<BuildResult> {
  const sessions = options.alone ? undefined : await heldSessions(context);
  // Warnings (unreadable analysis files, unknown codebooks) go through the effects, once.
  return buildSite(context.dir, { out: options.out, reporter: effects, sessions });
}

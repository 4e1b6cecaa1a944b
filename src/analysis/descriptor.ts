import type { Artifact } from "../util/artifact.js";
import type { Session } from "../transcript/schema.js";

/** The `colloquy study` stages (and commands of the same name) that write analysis files. */
export type AnalysisStage = "agree" | "compare" | "stats" | "topics" | "concepts";

/** What an analysis may look at to say whether its dashboard views will be empty. */
export interface StudyFacts {
  sessions: readonly Session[];
  /** Conditions of the sessions, sorted; a session without one counts as NO_CONDITION. */
  conditions: readonly string[];
  /** The parts of colloquy.json an analysis looks at (a StudyConfig is one). */
  config: {
    humanCoders: readonly string[];
    codebooks: readonly { coders: readonly unknown[] }[];
    compare: { control?: string; conditionGroups?: Record<string, unknown> };
  };
  /** Path of colloquy.json, to name in hints. */
  configFile: string;
}

/**
 * One analysis, as the code around it needs to know it: each folder of src/analysis/ that writes
 * a file exports one, and `analyses` (./analyses.ts) lists them. Whoever needs "every analysis"
 * iterates that list instead of naming ids: the report validates and keeps each `result`
 * (src/report/load.ts), `colloquy study` re-runs a stage when one of its `artifacts` is missing
 * and rebuilds the dashboard when a `result` changed (src/pipeline/stages.ts), and warns once
 * per run about the views `emptyWhen` says will be empty (src/pipeline/empty-views.ts).
 */
export interface AnalysisDescriptor<T = unknown> {
  /** Stable id; the report's key for its results. */
  readonly id: string;
  /** What it computes, in a few words ("inter-coder agreement"), named in warnings. */
  readonly title: string;
  /** The stage of `colloquy study` that writes its files; the command of the same name does too. */
  readonly stage: AnalysisStage;
  /** The JSON file the report reads, validated with the schema of its registry entry. */
  readonly result: Artifact<string[], T>;
  /**
   * Every registry file its stage writes on each run (`result` and its CSV tables), with the same
   * parameters as `result` (none, or the codebook id). A missing one makes the stage run again.
   */
  readonly artifacts: readonly Artifact[];
  /** Titles of the dashboard views (web/views/) that show numbers this analysis computes. */
  readonly views: readonly string[];
  /**
   * Why its `views` will be empty for this study and how to fill them (one or two sentences), or
   * undefined when they will not be. Said once at the end of `colloquy study`.
   */
  emptyWhen?(study: StudyFacts): string | undefined;
}

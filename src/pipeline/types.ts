import type { StudyContext } from "../stages/context.js";
import type { Reporter } from "../util/reporter.js";
import type { FileHasher } from "./fingerprint.js";
import type { PipelineState } from "./state.js";

export const stageNames = ["import", "code", "agree", "compare", "stats", "topics", "concepts", "build"] as const;
export type StageName = (typeof stageNames)[number];

export interface PipelineOptions {
  /** Overrides the machine coder of every codebook plan ("rules" offline, "llm" with a model). */
  coder?: "rules" | "llm";
  model?: string;
  baseUrl?: string;
  /** Run only these stages (others are neither run nor checked). */
  only?: StageName[];
  /** Redo these stages even when unchanged (true = all). */
  force?: boolean | StageName[];
}

/** What a pipeline stage sees: the study (loaded once for the whole run) and the run's bookkeeping. */
export interface StageContext {
  study: StudyContext;
  options: PipelineOptions;
  reporter: Reporter;
  state: PipelineState;
  /** Content hashes of the study's folders, read once per run and remembered across runs. */
  hashes: FileHasher;
}

/** What a stage would do now, computed from its current inputs. */
export interface StagePlan {
  /** Fingerprint of everything the stage's output depends on. */
  fingerprint: string;
  /** One line: what running it means ("code 40 new turns with rules"). */
  work: string;
  /** True when there is nothing to do regardless of the fingerprint (e.g. empty inbox). */
  nothingToDo?: boolean;
  /** A reason to run regardless of the fingerprint (e.g. the output was deleted). */
  mustRun?: string;
  /** Estimated LLM use, when the stage calls a model. */
  llm?: { requests: number; promptTokens: number };
}

/** The study folders whose files a stage reads through the run's FileHasher (its content fingerprints). */
export type HashedFolder = "sessions" | "codes" | "analysis" | "inbox";

export interface Stage {
  name: StageName;
  description: string;
  /**
   * The hashed folders whose files running the stage may change: after it ran, the run hashes
   * those again and keeps the others' hashes (walking the 1,000 session files of a 100,000-turn
   * study after every stage cost 0.3 s a run). test/pipeline/stage-writes.test.ts runs each stage,
   * offline and with the LLM coders, and checks it changes nothing else.
   */
  writes: readonly HashedFolder[];
  plan(context: StageContext): Promise<StagePlan>;
  /**
   * Stages whose outputs this one reads: when one of them fails this run, this stage is not run.
   * Every other stage still runs after a failure (a failed compare does not stop topics).
   */
  needs?: readonly StageName[];
  /** Run and return a one-line summary. Throws on failure (the stages that need it are not run; the run fails at its end). */
  run(context: StageContext): Promise<string>;
  /**
   * For a stage whose own outputs are among its inputs (code: the codes it wrote decide what is
   * left to code): its input fingerprint, taken again after it ran, so an unchanged study skips
   * it next time without planning the work.
   */
  fingerprintAfterRun?(context: StageContext): Promise<string>;
}

import type { z } from "zod";
import type { Conversation } from "./conversation.js";
import type { Agent } from "./agent.js";

/**
 * A turn-taking strategy: the experimental variable of many studies. Each lives in its own
 * module under policies/, declares its parameters (zod, with documented defaults) and drives
 * a Conversation until it decides the session is over or `conversation.stopReason()` says so.
 * Strategies take every random decision from `conversation.random` so runs replay exactly.
 */
export interface Strategy<P = unknown> {
  type: string;
  description: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- strategies differ in their parameter types
  params: z.ZodType<P, any>;
  /**
   * Problems zod cannot see (participant names that do not exist, ...), as
   * "strategy.<field>: ..." lines; checked before any session runs.
   */
  check?(params: P, find: (name: string) => Agent | undefined): string[];
  /** Commands a participant's page offers as buttons throughout a session (the page is never told the strategy's name). */
  controls?(params: P): readonly string[];
  run(conversation: Conversation, params: P): Promise<void>;
}

/** Helper so each policy file keeps its parameter type inferred from its schema. */
export function defineStrategy<S extends z.ZodType>(strategy: {
  type: string;
  description: string;
  params: S;
  check?(params: z.infer<S>, find: (name: string) => Agent | undefined): string[];
  controls?(params: z.infer<S>): readonly string[];
  run(conversation: Conversation, params: z.infer<S>): Promise<void>;
}): Strategy<z.infer<S>> {
  return strategy as Strategy<z.infer<S>>;
}

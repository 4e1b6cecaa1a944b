import type { ModelCliOptions } from "../llm/config.js";
import { CliError } from "../util/errors.js";

/** The endpoint flags the LLM commands share (`code`, `topics`, `batch`). */
export interface ModelFlags {
  model?: string;
  baseUrl?: string;
  concurrency?: number;
  temperature?: number;
  seed?: number;
  timeout?: number;
}

/** The model settings given on the command line; a --base-url that is not a URL stops here, naming it. */
export function modelFlags(flags: ModelFlags): ModelCliOptions {
  if (flags.baseUrl !== undefined) {
    try {
      new URL(flags.baseUrl);
    } catch {
      throw new CliError(`--base-url "${flags.baseUrl}" is not a URL; e.g. http://localhost:11434/v1 or https://api.openai.com/v1`);
    }
  }
  return {
    model: flags.model,
    baseURL: flags.baseUrl,
    concurrency: flags.concurrency,
    temperature: flags.temperature,
    seed: flags.seed,
    timeoutMs: flags.timeout,
  };
}

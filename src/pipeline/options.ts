import type { PipelineOptions, StageName } from "./types.js";

/** Whether --force names this stage (or all stages). */
export function isForced(options: PipelineOptions, name: StageName): boolean {
  return options.force === true || (Array.isArray(options.force) && options.force.includes(name));
}

/** Whether --only leaves this stage in. */
export function isSelected(options: PipelineOptions, name: StageName): boolean {
  return !options.only || options.only.includes(name);
}

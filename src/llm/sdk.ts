import type * as Sdk from "openai";

/**
 * The openai SDK, loaded when a model is first asked something: importing it took ~0.1 s, which
 * every `colloquy study` run paid (a no-op re-run of a 100,000-turn study took 0.4 s) although
 * most runs call no model (issue 11).
 */
let loaded: typeof Sdk | undefined;

export async function openaiSdk(): Promise<typeof Sdk> {
  return (loaded ??= await import("openai"));
}

/** The SDK when it was loaded, else undefined: an error can only be one of the SDK's once it was. */
export function loadedOpenaiSdk(): typeof Sdk | undefined {
  return loaded;
}

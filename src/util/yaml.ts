import { onFirstUse } from "./on-first-use.js";

/**
 * YAML text to a value, with the yaml package loaded on the first call: importing it took ~40 ms
 * that every command paid, though the shipped codebooks and most studies' are JSON. `require`
 * keeps callers synchronous (codebook and scenario parsing).
 */
const yaml = onFirstUse<typeof import("yaml")>("yaml");

export function parseYaml(text: string): unknown {
  return yaml().parse(text);
}

import { createRequire } from "node:module";

/**
 * YAML text to a value, with the yaml package loaded on the first call: importing it took ~40 ms
 * that every command paid, though the shipped codebooks and most studies' are JSON. `require`
 * keeps callers synchronous (codebook and scenario parsing).
 */
let yaml: typeof import("yaml") | undefined;

export function parseYaml(text: string): unknown {
  yaml ??= createRequire(import.meta.url)("yaml") as typeof import("yaml");
  return yaml.parse(text);
}

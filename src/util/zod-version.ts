import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

let version: string | null | undefined;

/**
 * The installed zod's version (another zod may accept or fill in other things for the same
 * schema): part of the key of every cache of validated or shaped data (util/code-version.ts,
 * study/validated-sessions.ts). Null when it cannot be told.
 */
export function zodVersion(): string | null {
  if (version !== undefined) return version;
  try {
    const manifest = createRequire(import.meta.url).resolve("zod/package.json");
    version = (JSON.parse(readFileSync(manifest, "utf8")) as { version?: string }).version ?? null;
  } catch {
    version = null;
  }
  return version;
}

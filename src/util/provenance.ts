import { readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { packageRoot } from "./package-root.js";

/** Colloquy's own version, read once from its package.json. */
export const toolVersion: string = (() => {
  try {
    const pkg = JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { version?: string };
    return pkg.version ?? "0.0.0";
  } catch {
    return "0.0.0";
  }
})();

/** Provenance block stamped on every output file so a reviewer can tell how each number was made. */
export interface Provenance {
  tool: "colloquy";
  version: string;
  createdAt: string;
  [detail: string]: unknown;
}

/**
 * The study as a provenance block names it: relative to the folder of the file that carries the
 * block ("." for a file inside the study, the default), never absolute, so a home folder name does
 * not travel with every shared file.
 */
export function portableStudyPath(root: string, fileFolder: string = root): string {
  return relative(resolve(fileFolder), resolve(root)) || ".";
}

export function provenance(details: Record<string, unknown> = {}): Provenance {
  return { tool: "colloquy", version: toolVersion, createdAt: new Date().toISOString(), ...details };
}

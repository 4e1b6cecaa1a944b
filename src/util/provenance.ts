import { relative, resolve } from "node:path";

/**
 * Colloquy's own version, stamped on every output. Kept here as a constant (not read from
 * package.json at run time) so that stamping an output touches no file: the analyses that stamp
 * their results stay pure. test/util/provenance.test.ts fails when it differs from package.json.
 */
export const toolVersion = "0.1.0";

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

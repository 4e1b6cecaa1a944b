import { readFileSync } from "node:fs";

/** Colloquy's own version, read once from package.json. */
export const toolVersion: string = (() => {
  for (const rel of ["../../package.json", "../../../package.json"]) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), "utf8")) as { name?: string; version?: string };
      if (pkg.name === "colloquy" && pkg.version) return pkg.version;
    } catch {
      // try the next location (source tree vs dist/ tree)
    }
  }
  return "0.0.0";
})();

/** Provenance block stamped on every output file so a reviewer can tell how each number was made. */
export interface Provenance {
  tool: "colloquy";
  version: string;
  createdAt: string;
  [detail: string]: unknown;
}

export function provenance(details: Record<string, unknown> = {}): Provenance {
  return { tool: "colloquy", version: toolVersion, createdAt: new Date().toISOString(), ...details };
}

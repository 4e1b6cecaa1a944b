import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let root: string | undefined;

/**
 * The colloquy package's folder (package.json, codebooks/, fixtures/, web/, dist/): the nearest
 * folder above the running module whose package.json names colloquy. Walked up, not counted in
 * `../` steps, because the module sits at different depths: src/util/ under tsx and in tests,
 * dist/src/util/ compiled, and dist/src/bundle/ in the CLI's bundle (scripts/bundle-cli.mjs),
 * where every module shares its chunk's location.
 */
export function packageRoot(): string {
  if (root === undefined) {
    const start = dirname(fileURLToPath(import.meta.url));
    for (let dir = start; ; dir = dirname(dir)) {
      if (namesColloquy(join(dir, "package.json"))) return (root = dir);
      if (dirname(dir) === dir) throw new Error(`the colloquy package was not found above ${start} (no package.json named "colloquy")`);
    }
  }
  return root;
}

function namesColloquy(file: string): boolean {
  if (!existsSync(file)) return false;
  try {
    return (JSON.parse(readFileSync(file, "utf8")) as { name?: unknown }).name === "colloquy";
  } catch {
    return false;
  }
}

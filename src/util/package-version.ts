import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const versions = new Map<string, string | null>();

/**
 * The installed version of a package, from its package.json (found from where the package
 * resolves, upwards: a package's exports may not let its package.json be resolved, and resolving
 * does not load the library, which can be slow). Null when it cannot be told. The caches are kept
 * per version of the libraries whose results they hold (util/code-version.ts: compromise, zod).
 */
export function installedVersion(name: string): string | null {
  const known = versions.get(name);
  if (known !== undefined) return known;
  let version: string | null = null;
  try {
    for (let dir = dirname(createRequire(import.meta.url).resolve(name)); ; dir = dirname(dir)) {
      try {
        const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string; version?: string };
        if (pkg.name === name) {
          version = pkg.version ?? null;
          break;
        }
      } catch {
        // No package.json here: look further up.
      }
      if (dirname(dir) === dir) break;
    }
  } catch {
    // Not installed.
  }
  versions.set(name, version);
  return version;
}

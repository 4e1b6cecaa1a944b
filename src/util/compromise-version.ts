import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

let version: string | undefined;

/** The installed compromise's version, from its package.json (resolving does not load the library, which is slow). */
export function compromiseVersion(): string {
  if (version !== undefined) return version;
  let dir = dirname(createRequire(import.meta.url).resolve("compromise"));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string; version?: string };
      if (pkg.name === "compromise") return (version = String(pkg.version));
    } catch {
      // No package.json here: look further up.
    }
    const up = dirname(dir);
    if (up === dir) return (version = "unknown");
    dir = up;
  }
}

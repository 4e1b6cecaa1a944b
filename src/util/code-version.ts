import { readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { sha256 } from "./hash.js";
import { installedVersion } from "./package-version.js";

let version: string | undefined;

/**
 * One version of everything that computes a cached result (the memos of .cache/memo, the stores
 * of tagger and lexicon answers, the build's shaped lines): a hash of every module of this copy of
 * colloquy (src/, its compiled dist/src/ twin, or the CLI's bundle of them in dist/src/bundle/), compromise's version, zod's (which validates
 * what the caches hold results of) and V8's (whose serializer writes the caches). Any change to
 * any of them, even one a version number does not record (a fix to a helper an analysis imports,
 * `npm update compromise`), makes every cache a miss, so a reused result always equals a fresh
 * one. Read once per process (the bundle's ~140 chunks, or ~360 modules).
 */
export function codeVersion(): string {
  if (version === undefined) {
    const root = codeRoot(dirname(fileURLToPath(import.meta.url)));
    const files = modules(root, "").sort();
    const code = sha256(files.map((f) => `${f}\u0000${sha256(readFileSync(join(root, f)))}`).join("\n"));
    version = `${code}\u0000${installedVersion("compromise") ?? "unknown"}\u0000zod ${installedVersion("zod")}\u0000${process.versions.v8}`;
  }
  return version;
}

/**
 * Whether a module in `moduleDir` runs from the CLI's bundle (dist/src/bundle/, scripts/bundle-cli.mjs),
 * where every module shares its chunk's folder.
 */
export const inBundle = (moduleDir: string): boolean => basename(moduleDir) === BUNDLE;
const BUNDLE = "bundle";

/**
 * The folder holding all of the code that runs, from the folder of this module: src/ (or
 * dist/src/) from its util/, the bundle's own folder in the CLI's bundle. The compiled modules
 * and the bundle made of them are hashed apart (each version names the code that computed), so
 * the CLI and a script importing the compiled library keep their caches under different versions.
 */
export const codeRoot = (moduleDir: string): string => (inBundle(moduleDir) ? moduleDir : dirname(moduleDir));

/** Paths of the .js/.ts modules below `root` (not .d.ts), relative to it. Walked by hand: readdirSync's `recursive` needs Node 20.1. */
function modules(root: string, folder: string): string[] {
  return readdirSync(join(root, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = folder ? `${folder}/${entry.name}` : entry.name;
    if (entry.isDirectory()) return path === BUNDLE ? [] : modules(root, path);
    return /\.(js|ts)$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

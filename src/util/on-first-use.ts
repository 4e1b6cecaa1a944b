import { createRequire } from "node:module";

const requireHere = createRequire(import.meta.url);

/**
 * A package loaded by the first call, then kept: for the packages few runs need (yaml, fflate,
 * fast-xml-parser, iconv-lite, chardet), whose import every command paid at start-up though most
 * never used them (20-65 ms each). `require` keeps their callers synchronous, and esbuild leaves a
 * name it cannot see out of the CLI's bundle, so the package loads from node_modules when used.
 */
export function onFirstUse<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= requireHere(name) as T);
}

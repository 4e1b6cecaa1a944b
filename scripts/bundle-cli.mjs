#!/usr/bin/env node
// Bundle the compiled CLI (dist/src/cli/main.js) into dist/src/bundle/, the code bin/colloquy.js
// runs. Run after `tsc` (`npm run build` runs both: `tsc` alone leaves the CLI as it was). Why:
// Node loaded ~370 ES modules one by one for a pipeline run (zod alone is 95), about 0.2 s of
// every command (issue 11: adding one session to a large study in <= 10% of a full run). The
// bundle loads the same code from a few chunks.
//
// - Split at every dynamic import, so a command still loads only what it runs (`--version`
//   loads commander and the CLI's light modules; test/cli/startup.test.ts checks the sources).
// - Kept outside (loaded from node_modules when used): the OpenAI SDK (only for LLM coders),
//   compromise (one copy, as the compiled modules load it), playwright-core (report --png only), esbuild (bundles the dashboard from
//   source), and what colloquy loads with src/util/on-first-use.ts (yaml, fflate, diff,
//   fast-xml-parser, iconv-lite, chardet), whose require of a name it cannot see esbuild does not follow.
// - The chunks sit in one folder at the depth of src/<folder>/. The package's own files are found
//   by util/package-root.ts, which walks up; util/code-version.ts hashes this folder, all of the
//   code that runs. A lookup relative to a module's own file (`new URL("../x", import.meta.url)`)
//   would find dist/src/x, the compiled modules, which are not what runs: none is made from the
//   bundle (study/validated-sessions.ts takes the bundle's code version for its schema's).
// - Written to a folder beside it and swapped in, so a command started during a build runs the
//   old bundle or the new one, never half of one. A command already running when the bundle is
//   swapped, that has yet to load one of its lazy chunks, fails and must be started again.
import { realpathSync } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * zod's `locales` namespace (its error messages in 50 languages, 360 KB) left out: colloquy never
 * names it (a lint rule keeps it so), and every command that imports zod evaluated all of it
 * (loading zod took 40 ms, 21 ms without). The English messages zod uses by default come from
 * `locales/en.js`, which classic/schemas.js imports on its own and stays; only the namespace's
 * index is replaced by an empty module (`z.locales` and `z.core.locales` are then empty).
 */
const withoutZodLocales = {
  name: "without-zod-locales",
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/](classic|core)[\\/]/.test(args.importer) ? { path: "zod-locales", namespace: "colloquy-empty" } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "colloquy-empty" }, () => ({ contents: "export {};", loader: "js" }));
  },
};

/** Bundle `entry` (a CLI main module exporting `main`) into `outdir`, replacing what it held. */
export async function bundleCli({ entry, outdir }) {
  const esbuild = await import("esbuild");
  const next = `${outdir}.next-${process.pid}`;
  const old = `${outdir}.old-${process.pid}`;
  await rm(next, { recursive: true, force: true });
  await esbuild.build({
    entryPoints: { main: entry },
    outdir: next,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    external: ["openai", "compromise", "esbuild", "playwright-core"],
    // Bundled CommonJS packages (commander, papaparse, iconv-lite…) require Node's own modules.
    banner: { js: 'import { createRequire as __colloquyRequire } from "node:module"; const require = __colloquyRequire(import.meta.url);' },
    logLevel: "warning",
    plugins: [withoutZodLocales],
  });
  await rename(outdir, old).catch((error) => {
    if (error.code !== "ENOENT") throw error;
  });
  await rename(next, outdir);
  await rm(old, { recursive: true, force: true });
}

// Run as a script (not imported by the test): through its real path, whatever links led to it.
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL("..", import.meta.url));
  await bundleCli({ entry: join(root, "dist", "src", "cli", "main.js"), outdir: join(root, "dist", "src", "bundle") });
  console.log("dist/src/bundle: the CLI, bundled");
}

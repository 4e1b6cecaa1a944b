#!/usr/bin/env node
// Bundle the compiled CLI (dist/src/cli/main.js) into dist/src/bundle/, the code bin/colloquy.js
// runs. Run after `tsc`. Why: Node loads ~370 ES modules one by one for a pipeline run (zod
// alone is 95), and that took about 0.25 s of every command (issue 11: adding one session to a
// large study in <= 10% of a full run). The bundle loads the same code from a few chunks.
//
// - Split at every dynamic import, so a command still loads only what it runs (`--version`
//   loads commander and the CLI's light modules; test/cli/startup.test.ts checks the sources).
// - Kept outside (loaded from node_modules when used): the OpenAI SDK (only for LLM coders),
//   compromise (as the compiled modules load it: one copy, whichever way it is imported),
//   esbuild (bundles the dashboard from source), and what colloquy loads with createRequire
//   (compromise, yaml, fflate, diff, fast-xml-parser), which esbuild does not follow.
// - The chunks sit in one folder at the depth of src/<folder>/, so the lookups some modules make
//   relative to their own file (util/code-version.ts: "../"; study/validated-sessions.ts:
//   "../transcript/") find the same folders as from dist/src/<folder>/; the package's own files
//   are found by util/package-root.ts, which walks up.
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** Bundle `entry` (a CLI main module exporting `main`) into `outdir`, emptied first. */
export async function bundleCli({ entry, outdir }) {
  const esbuild = await import("esbuild");
  await rm(outdir, { recursive: true, force: true });
  await esbuild.build({
    entryPoints: { main: entry },
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    external: ["openai", "compromise", "esbuild", "playwright-core", "d3"],
    // Bundled CommonJS packages (commander, papaparse…) require Node's own modules.
    banner: { js: 'import { createRequire as __colloquyRequire } from "node:module"; const require = __colloquyRequire(import.meta.url);' },
    logLevel: "warning",
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = fileURLToPath(new URL("..", import.meta.url));
  await bundleCli({ entry: join(root, "dist", "src", "cli", "main.js"), outdir: join(root, "dist", "src", "bundle") });
  console.log("dist/src/bundle: the CLI, bundled");
}

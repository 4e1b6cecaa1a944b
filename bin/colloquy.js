#!/usr/bin/env node
// Thin launcher: the compiled CLI, bundled, lives in dist/src/bundle/ (built by `npm install` via
// the prepare script: tsc, then scripts/bundle-cli.mjs).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const compiled = fileURLToPath(new URL("../dist/src/bundle/main.js", import.meta.url));
if (!existsSync(compiled)) {
  console.error("colloquy: the compiled CLI is missing. Run `npm install` (or `npm run build`) in the colloquy folder first.");
  process.exit(1);
}
const { main } = await import(compiled);
process.exitCode = await main(process.argv);

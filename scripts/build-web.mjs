#!/usr/bin/env node
// Prebundle the dashboard app (web/ + d3) into dist/web/app.js and app.css, so an installed
// colloquy can build sites without esbuild (a devDependency). Run after `tsc` (it uses the
// compiled bundler in dist/src/report/webbundle.js so the options live in one place).
import { mkdir, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { join } from "node:path";

const root = fileURLToPath(new URL("..", import.meta.url));
const { bundleWeb } = await import(join(root, "dist", "src", "report", "webbundle.js"));
const assets = await bundleWeb(root);
const out = join(root, "dist", "web");
await mkdir(out, { recursive: true });
await writeFile(join(out, "app.js"), assets.js);
await writeFile(join(out, "app.css"), assets.css);
console.log(`dist/web: app.js ${(assets.js.length / 1024).toFixed(0)} KB, app.css ${(assets.css.length / 1024).toFixed(0)} KB`);

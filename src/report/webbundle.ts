import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { packageRoot } from "../util/package-root.js";

/** The dashboard app: one JS file (d3 included) and one CSS file. */
export interface WebAssets {
  js: string;
  css: string;
  /** "prebundled" (dist/web from the package build) or "esbuild" (bundled now from web/). */
  origin: "prebundled" | "esbuild";
}

const runningFromSource = fileURLToPath(import.meta.url).includes(`${join("src", "report")}`) && !fileURLToPath(import.meta.url).includes(join("dist", "src"));

/**
 * Bundle web/main.ts and web/style.css with esbuild (a devDependency, so only from a source
 * checkout). Everything, d3 included, ends up in the one file: the site needs no network.
 */
export async function bundleWeb(root = packageRoot()): Promise<WebAssets> {
  const esbuild = await import("esbuild");
  const result = await esbuild.build({
    entryPoints: { app: join(root, "web", "main.ts"), style: join(root, "web", "style.css") },
    bundle: true,
    write: false,
    minify: true,
    format: "iife",
    target: ["es2020"],
    outdir: "out",
    legalComments: "none",
    logLevel: "silent",
  });
  const js = result.outputFiles.find((f) => f.path.endsWith(".js"));
  const css = result.outputFiles.find((f) => f.path.endsWith(".css"));
  if (!js || !css) throw new Error("esbuild produced no app.js/app.css");
  return { js: js.text, css: css.text, origin: "esbuild" };
}

let cached: Promise<WebAssets> | undefined;

/**
 * The app's assets: the prebundle in dist/web when running the compiled package, else a bundle
 * made now from web/ (running from source: tests, tsx), memoised for the process.
 */
export function webAssets(): Promise<WebAssets> {
  cached ??= (async () => {
    const root = packageRoot();
    const pre = join(root, "dist", "web");
    if (!runningFromSource && existsSync(join(pre, "app.js")) && existsSync(join(pre, "app.css"))) {
      return { js: await readFile(join(pre, "app.js"), "utf8"), css: await readFile(join(pre, "app.css"), "utf8"), origin: "prebundled" as const };
    }
    if (!existsSync(join(root, "web", "main.ts"))) {
      throw new Error(`the dashboard app is missing: neither ${join(pre, "app.js")} nor web/main.ts exists. Run \`npm run build\` in the colloquy folder.`);
    }
    return bundleWeb(root);
  })();
  cached.catch(() => (cached = undefined));
  return cached;
}

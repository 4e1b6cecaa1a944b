// The CLI users run is a bundle of the compiled modules (scripts/bundle-cli.mjs, run by `npm run
// build`; bin/colloquy.js loads it). Here the same recipe bundles the sources into a folder of
// its own, and the bundled CLI must find the package's files (its version, the shipped codebooks,
// the demo study, the dashboard's app) from there and write what the modules write unbundled.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { bundleCli } from "../../scripts/bundle-cli.mjs";
import { runCli } from "../support/cli.js";

const root = resolve(import.meta.dirname, "../..");
let work: string;
let launcher: string;

beforeAll(async () => {
  // Inside the package (so that walking up finds it), at the depth dist/src/bundle/ has.
  await mkdir(join(root, "test-output"), { recursive: true });
  work = await mkdtemp(join(root, "test-output", "bundle-"));
  const outdir = join(work, "src", "bundle");
  await bundleCli({ entry: join(root, "src", "cli", "main.ts"), outdir });
  launcher = join(work, "colloquy.mjs");
  await writeFile(launcher, `const { main } = await import(${JSON.stringify(join(outdir, "main.js"))});\nprocess.exitCode = await main(process.argv);\n`);
}, 60_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

const bundled = (args: string[]) => spawnSync(process.execPath, [launcher, ...args], { encoding: "utf8", env: { ...process.env, CI: "true" } });

async function filesOf(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

/**
 * A file's name or text with what differs between two runs of the same input masked: times, the
 * study's folder, a record's coding time (left out when 0 ms), the hashed names of the site's
 * files (its app is bundled now from web/ by the modules, taken from dist/web/ by the bundle; the
 * overview view's file holds the analysis files' times).
 */
const masked = (text: string, study: string) =>
  text
    .replaceAll(study, "<study>")
    .replaceAll(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "<time>")
    .replaceAll(/,"ms":\d+/g, "")
    .replaceAll(/(data|app|views\/[a-z]+)\.[0-9a-f]{12}\.(json|js|css)/g, "$1.<hash>.$2")
    .replaceAll(/"(study|name)": ?"(bundled|modules)"/g, '"$1":"<name>"');

describe("the bundled CLI", () => {
  it("is split into chunks and keeps the OpenAI SDK and compromise outside", async () => {
    const chunks = await readdir(join(work, "src", "bundle"));
    expect(chunks.length).toBeGreaterThan(10);
    const code = (await Promise.all(chunks.map((c) => readFile(join(work, "src", "bundle", c), "utf8")))).join("\n");
    expect(code).toMatch(/from "openai"|import\("openai"\)/);
    expect(code).not.toContain("node_modules/openai/");
    expect(code).not.toContain("node_modules/compromise/");
  });

  it("leaves zod's other languages out and still says what is invalid in English", async () => {
    const chunks = await readdir(join(work, "src", "bundle"));
    const code = (await Promise.all(chunks.map((c) => readFile(join(work, "src", "bundle", c), "utf8")))).join("\n");
    expect(code).toContain("node_modules/zod/v4/locales/en.js");
    expect(code).not.toContain("node_modules/zod/v4/locales/de.js");
    expect(code).not.toContain("node_modules/zod/v4/locales/index.js");
    const dir = await mkdtemp(join(tmpdir(), "colloquy-bundle-zod-"));
    try {
      const file = join(dir, "book.json");
      await writeFile(file, JSON.stringify({ id: "x", kind: "nominal", version: "1", title: "X", categories: [{ id: "a", label: "A" }, { id: "b" }] }));
      const run = bundled(["codebook", "validate", file]);
      expect(run.status).toBe(1);
      expect(run.stderr).toContain("categories[1].label: Invalid input: expected string, received undefined");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("prints the package's version", async () => {
    const { version } = JSON.parse(await readFile(join(root, "package.json"), "utf8")) as { version: string };
    const run = bundled(["--version"]);
    expect(run.stderr).toBe("");
    expect(run.stdout.trim()).toBe(version);
  });

  it("runs the demo study as the unbundled modules do, file for file", async () => {
    const base = await mkdtemp(join(tmpdir(), "colloquy-bundle-"));
    try {
      const viaBundle = join(base, "bundled");
      const viaModules = join(base, "modules");
      const run = bundled(["demo", "--dir", viaBundle]);
      expect(run.status, run.stderr).toBe(0);
      expect((await runCli(["demo", "--dir", viaModules])).code).toBe(0);
      // Caches are not outputs: whether one is written can depend on the clock (file-stamp.ts, settled).
      const outputs = async (dir: string) => (await filesOf(dir)).filter((f) => !f.startsWith(".cache/"));
      const files = await outputs(viaModules);
      expect(files).toContain("site/index.html");
      expect(files.some((f) => f.startsWith("analysis/"))).toBe(true);
      const theirs = await outputs(viaBundle);
      expect(theirs.map((f) => masked(f, viaBundle))).toEqual(files.map((f) => masked(f, viaModules)));
      // Not compared: the pipeline's state (stage timings, and fingerprints of the code files, which
      // hold times) and the app, which comes from dist/web/ (test/web checks it).
      for (const [i, file] of files.entries()) {
        if (file === ".colloquy-state.json" || /^site\/app\./.test(file)) continue;
        expect(masked(await readFile(join(viaBundle, theirs[i]), "utf8"), viaBundle), file).toBe(
          masked(await readFile(join(viaModules, file), "utf8"), viaModules),
        );
      }
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  }, 120_000);

  // What `npm run build` made (scripts/bundle-cli.mjs run as a script), as bin/colloquy.js runs it.
  it.runIf(existsSync(join(root, "dist", "src", "bundle", "main.js")))("bin/colloquy.js runs the built bundle", async () => {
    const { version } = JSON.parse(await readFile(join(root, "package.json"), "utf8")) as { version: string };
    const run = spawnSync(process.execPath, [join(root, "bin", "colloquy.js"), "--version"], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(run.stdout.trim()).toBe(version);
  });
});

import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { cp, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Libraries only some inputs need are loaded on first use (src/util/xml.ts, src/util/zip.ts,
 * src/coding/realign.ts, src/ingest/encoding.ts and encoding-scan.ts for files not in UTF-8; the
 * lint rules keep other modules from importing them): importing them cost ~0.1 s of every import run. A fresh process runs the demo study offline, from its plain-text
 * transcripts, and names the packages it required.
 */
const lazy = ["fast-xml-parser", "fflate", "diff", "iconv-lite", "chardet"];

describe("libraries loaded on first use", () => {
  it("are not loaded by an offline study run of plain transcripts; the XML reader loads its parser when asked", async () => {
    const dir = join(await mkdtemp(join(tmpdir(), "colloquy-lazy-")), "demo");
    await cp(join(import.meta.dirname, "../../fixtures/demo-study"), dir, { recursive: true });
    const script = join(dir, "..", "run.mts");
    const hook = `export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (/node_modules\\/(${lazy.join("|")})\\//.test(resolved.url)) throw new Error("imported as an ES module: " + resolved.url);
  return resolved;
}`;
    const src = join(import.meta.dirname, "../../src");
    await writeFile(
      script,
      `import { createRequire, register } from "node:module";
// An ES import of a lazy package fails the run (hooks see ES imports only); require.cache shows CommonJS loads.
register("data:text/javascript," + encodeURIComponent(${JSON.stringify(hook)}));
const { runPipeline } = await import(${JSON.stringify(join(src, "pipeline/run.ts"))});
const { studyStages } = await import(${JSON.stringify(join(src, "pipeline/stages.ts"))});
const { silentReporter } = await import(${JSON.stringify(join(src, "util/reporter.ts"))});
const packages = () => Object.keys(createRequire(import.meta.url).cache).flatMap((p) => /node_modules\\/([^/]+)\\//.exec(p)?.[1] ?? []);
const run = await runPipeline(process.argv[2], studyStages, {}, silentReporter);
const afterRun = packages();
const { parseXmlTree } = await import(${JSON.stringify(join(src, "util/xml.ts"))});
parseXmlTree("<a><b>x</b></a>", new Set());
console.log(JSON.stringify({ statuses: run.stages.map((s) => s.status), afterRun, afterXml: packages() }));
`,
    );
    const child = spawnSync(process.execPath, ["--import", "tsx", script, dir], { encoding: "utf8", env: { ...process.env, CI: "true" } });
    expect(child.status, child.stderr).toBe(0);
    const out = JSON.parse(child.stdout.trim().split("\n").at(-1)!) as { statuses: string[]; afterRun: string[]; afterXml: string[] };
    expect(out.statuses.every((s) => s === "ran")).toBe(true);
    for (const name of lazy) expect(out.afterRun).not.toContain(name);
    expect(out.afterXml).toContain("fast-xml-parser");
  }, 60_000);
});

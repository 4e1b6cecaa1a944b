// `colloquy report --png`: every figure also as a PNG that prints at 300 dpi one column (85 mm)
// wide, drawn by Chromium; a clear error, and no file written, when Chromium is missing.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeDashboardFixture } from "../../fixtures/dashboard/generate.js";
import { runCli } from "../support/cli.js";
import { COLUMN_PIXELS } from "../../src/report/paper/png.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "colloquy-png-"));
  await writeDashboardFixture(dir);
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await rm(dir, { recursive: true, force: true });
});

/** Width, height and pixels per metre of a PNG, from its IHDR and pHYs chunks. */
function pngInfo(png: Buffer): { width: number; height: number; perMetre?: number } {
  expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  const info: { width: number; height: number; perMetre?: number } = { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at);
    const type = png.toString("latin1", at + 4, at + 8);
    if (type === "pHYs") {
      expect(png.readUInt32BE(at + 12)).toBe(png.readUInt32BE(at + 8));
      expect(png[at + 16]).toBe(1);
      info.perMetre = png.readUInt32BE(at + 8);
    }
    if (type === "IDAT") expect(info.perMetre, "pHYs comes before the image data").toBeDefined();
    at += 12 + length;
  }
  return info;
}

describe("report --png", () => {
  it("writes a 300 dpi PNG per figure, 85 mm wide, and the Markdown links them", async () => {
    const out = join(dir, "paper", "report.md");
    const run = await runCli(["report", dir, "--png", "--out", out]);
    expect(run.code, run.stderr).toBe(0);
    const md = await readFile(out, "utf8");
    const links = [...md.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)].map((m) => decodeURI(m[1]));
    expect(links.length).toBeGreaterThan(0);
    for (const link of links) {
      expect(link).toMatch(/^report-figures\/.+\.png$/);
      const png = await readFile(join(dir, "paper", link));
      const info = pngInfo(png);
      // 85 mm at 300 dpi: 1004 pixels across; the pHYs chunk says 300 dpi (11,811 pixels per metre).
      expect(info.width).toBe(COLUMN_PIXELS);
      expect(COLUMN_PIXELS).toBe(1004);
      expect(info.perMetre).toBe(11811);
      expect((info.width / info.perMetre!) * 1000).toBeCloseTo(85, 0);
      expect(info.height).toBeGreaterThan(100);
      // The SVG stays beside it.
      expect(existsSync(join(dir, "paper", link.replace(/\.png$/, ".svg")))).toBe(true);
    }
  }, 60_000);

  it("without Chromium: says what to install, exits non-zero and writes nothing", async () => {
    vi.stubEnv("COLLOQUY_CHROMIUM", join(dir, "no-such-chromium"));
    try {
      const out = join(dir, "none", "report.md");
      const run = await runCli(["report", dir, "--png", "--out", out]);
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain("PNG figures need Chromium");
      expect(run.stderr).toContain("no-such-chromium");
      expect(run.stderr).toMatch(/apt-get install chromium|COLLOQUY_CHROMIUM/);
      expect(existsSync(join(dir, "none"))).toBe(false);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("refuses --png where no figure files are written", async () => {
    const html = await runCli(["report", dir, "--png", "--format", "html"]);
    expect(html.code).not.toBe(0);
    expect(html.stderr).toContain("--png is for the Markdown report");
    const stdout = await runCli(["report", dir, "--png", "--out", "-"]);
    expect(stdout.code).not.toBe(0);
    expect(stdout.stderr).toContain("give --out a file");
    expect(await readdir(dir)).not.toContain("-");
  });
});

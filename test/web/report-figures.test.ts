// Issue 39: the report's figures as a journal prints them, one column (85 mm) wide, measured in
// Chromium at their declared size: every text at 7 pt or more, none leaving its figure or lying
// on another (in the fonts the figures name, and in DejaVu Sans, the wider font a Linux machine
// without them falls back to), and series a reader can tell apart in greyscale.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { writeDashboardFixture, writeLargeStudy } from "../../fixtures/dashboard/generate.js";
import { runCli } from "../support/cli.js";
import { chartSvg } from "../../src/report/paper/svg.js";
import type { Chart } from "../../src/report/paper/document.js";
import { CONDITION_COLOURS, colourAt } from "../../src/report/palette.js";
import { launchBrowser } from "./browser.js";
import { greyscaleProblems, measurePrint } from "./chart-checks.js";

let dirs: string[] = [];
let browser: Browser;
let page: Page;
/** The SVG files `colloquy report` wrote for the fixture study and for a generated study of 1,200 turns. */
const written: string[] = [];

async function reportFigures(dir: string): Promise<string[]> {
  const run = await runCli(["report", dir, "--out", join(dir, "paper", "report.md")]);
  expect(run.code, run.stderr).toBe(0);
  const folder = join(dir, "paper", "report-figures");
  return Promise.all((await readdir(folder)).filter((f) => f.endsWith(".svg")).map((f) => readFile(join(folder, f), "utf8")));
}

beforeAll(async () => {
  const known = await mkdtemp(join(tmpdir(), "colloquy-figures-known-"));
  const many = await mkdtemp(join(tmpdir(), "colloquy-figures-many-"));
  dirs = [known, many];
  await writeDashboardFixture(known);
  await writeLargeStudy(many, 1200, 200, { analysis: true, speakers: 20 });
  const compare = await runCli(["compare", many, "--codebook", "bales-ipa", "--coder", "rules"]);
  expect(compare.code, compare.stderr).toBe(0);
  written.push(...(await reportFigures(known)), ...(await reportFigures(many)));
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** Figures made to be hard: seven conditions with long names, labels with long words, other scripts, capitals, negative values. */
const conditions = ["control", "facilitator with a long condition name", "debate", "WWW MMM capitals", "socratic", "critical friend", "silent observer"];
const hardBars: Extract<Chart, { kind: "bars" }> = {
  kind: "bars",
  id: "hard-bars",
  caption: "seven conditions",
  categories: ["Asks for suggestion", "a_category_named_with_one_very_long_identifier_and_no_spaces", "问题与回答的长标签", "Gives orientation"],
  series: conditions.map((name, i) => ({ name, values: [0.05 * (i + 1), 0.3 - 0.02 * i, 0.12, 0.41], colour: colourAt(CONDITION_COLOURS, i) })),
  valueLabel: "share of acts per code in each condition (acts of people and agents together)",
};
const hard: Chart[] = [
  hardBars,
  {
    kind: "intervals",
    id: "hard-intervals",
    caption: "differences below zero",
    rows: conditions.map((label, i) => ({ label, value: -120 + 40 * i, lower: -300 + 40 * i, upper: 60 + 40 * i, colour: colourAt(CONDITION_COLOURS, i) })),
    valueLabel: "words per session, condition minus control",
  },
];

describe("report figures at one column (85 mm)", () => {
  it("are 85 mm wide, with every text at 7 pt or more, none cut or overlapping, in either font", async () => {
    expect(written.length).toBeGreaterThanOrEqual(6);
    const svgs = [...written, ...hard.map(chartSvg)];
    for (const font of [undefined, "DejaVu Sans"]) {
      const figures = await measurePrint(page, svgs, font);
      expect(figures).toHaveLength(svgs.length);
      for (const f of figures) {
        expect(f.widthMm, f.chart).toBeCloseTo(85, 1);
        expect(f.smallestPt, f.chart).toBeGreaterThanOrEqual(7);
      }
      expect(figures.flatMap((f) => f.problems.map((p) => `${font ?? "as named"}: ${f.chart}: ${p}`))).toEqual([]);
    }
  }, 60_000);

  it("in greyscale: the series of a figure differ in lightness, or carry a texture or a label of their own", async () => {
    const figures = await measurePrint(page, [...written, ...hard.map(chartSvg)]);
    const swatches = figures.flatMap((f) => f.swatches);
    expect(greyscaleProblems(swatches)).toEqual([]);
    // The check saw coloured series, and the seven conditions' bars needed textures.
    const bars = swatches.filter((s) => s.chart === "seven conditions");
    expect(new Set(bars.map((s) => s.item)).size).toBe(7);
    expect(new Set(bars.map((s) => s.texture)).size).toBe(7);
    // Two conditions of the study (control and one more) differ in lightness: plain colours, no texture.
    const two = await measurePrint(page, [chartSvg({ ...hardBars, caption: "two", series: hardBars.series.slice(0, 2) })]);
    expect(two[0].swatches.every((s) => s.texture === "")).toBe(true);
    expect(greyscaleProblems(two[0].swatches)).toEqual([]);
  }, 60_000);

  it("the checks fail on a figure drawn as before (720 px, 11 px text) and on series told apart by hue alone", async () => {
    const before =
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 720 60" width="85mm" height="7.08mm" font-family="sans-serif"><title>old</title>' +
      '<text x="700" y="20" font-size="11">a label that runs past the right edge</text><text x="10" y="40" font-size="11">one</text><text x="12" y="42" font-size="11">two</text>' +
      '<rect x="0" y="50" width="10" height="5" fill="#E69F00" data-series="orange"/><rect x="20" y="50" width="10" height="5" fill="#56B4E9" data-series="sky blue"/></svg>';
    const [old] = await measurePrint(page, [before]);
    // 11 user units in a 720-unit-wide figure printed 85 mm wide: 11 x 240.9 / 720 = 3.7 pt.
    expect(old.smallestPt).toBeCloseTo(3.7, 1);
    expect(old.problems.some((p) => p.includes("prints at 3.7 pt"))).toBe(true);
    expect(old.problems.some((p) => p.includes("leaves the figure"))).toBe(true);
    expect(old.problems.some((p) => p.includes('"one" overlaps "two"'))).toBe(true);
    expect(greyscaleProblems(old.swatches)).toEqual([expect.stringContaining('"orange" (#E69F00) and "sky blue" (#56B4E9) differ by 1.9 in L*')]);
  }, 30_000);
});

// `colloquy report`: the demo study's report reads like a results section, and every number in
// it is the analysis files' number (the CSVs exactly, the text rounded from the same value).
import { beforeAll, describe, expect, it } from "vitest";
import { cp, mkdir, mkdtemp, readFile, readdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseTable } from "../../src/util/csv.js";
import { plainLabel } from "../../src/report/glossary.js";
import { runCli } from "../support/cli.js";
import { readSiteBundle } from "../../src/report/site.js";

const demo = join(import.meta.dirname, "../../fixtures/demo-study");
let dir = "";
const json = async (file: string) => JSON.parse(await readFile(join(dir, "analysis", file), "utf8"));
const csv = async (name: string) => parseTable(name, await readFile(join(dir, "analysis", "report-tables", name), "utf8"));

beforeAll(async () => {
  dir = join(await mkdtemp(join(tmpdir(), "colloquy-report-")), "demo");
  await cp(demo, dir, { recursive: true });
  const run = await runCli(["study", dir]);
  expect(run.code, run.stderr).toBe(0);
}, 120_000);

describe("colloquy report", () => {
  it("links an SVG file per figure beside the Markdown, and names nothing a reader cannot read", async () => {
    const run = await runCli(["report", dir, "--format", "md"]);
    expect(run.code, run.stderr).toBe(0);
    const md = await readFile(join(dir, "analysis", "report.md"), "utf8");
    const links = [...md.matchAll(/!\[[^\]]+\]\(([^)]+)\)/g)].map((m) => m[1]);
    expect(links.length).toBeGreaterThanOrEqual(3);
    for (const link of links) {
      expect(link).toMatch(/^report-figures\/[\w-]+\.svg$/);
      const svg = await readFile(join(dir, "analysis", decodeURI(link)), "utf8");
      expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]* width="85mm"/);
      // The figure's words too: labels, legend, axis title.
      expect(svg.replace(/<[^>]+>/g, " ").match(/\b[a-z]+[A-Z][A-Za-z]*\b/g) ?? [], link).toEqual([]);
    }
    expect(md).not.toMatch(/in the HTML report/);
    // What a reader sees: the text without code spans (file and field references) and link targets.
    const visible = md.replace(/`[^`]*`/g, "").replace(/\]\([^)]*\)/g, "]");
    expect(visible.match(/\b[a-z]+[A-Z][A-Za-z]*\b/g) ?? []).toEqual([]);
    expect(visible).not.toMatch(/&(lt|gt|amp|quot|#\d+);/);
    expect(visible).not.toMatch(/\b(rules|llm|learned)'s\b/);
    // Every n in the topics and concepts summaries says what it counts.
    expect(visible).toMatch(/n = 3 participants/);
    expect(visible).not.toMatch(/n = \d+[;.)]/);
  });

  it("writes Markdown in the order of a paper's method and results, with APA-style statistics", async () => {
    const run = await runCli(["report", dir]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Wrote .*report\.md/);
    const md = await readFile(join(dir, "analysis", "report.md"), "utf8");
    const headings = [...md.matchAll(/^#{2,3} (.+)$/gm)].map((m) => m[1]);
    expect(headings.slice(0, 6)).toEqual(["Method", "Sample", "Design", "Coding", "Results", "Reliability"]);
    expect(headings).toContain("Code frequencies by condition (bales-ipa)");
    expect(headings.indexOf("Topics")).toBeGreaterThan(headings.indexOf("Reliability"));
    expect(md).toMatch(/Design: within-subject, unit: participant \(paired by participant id\); declared \(colloquy\.json compare\)/);
    expect(md).toMatch(/one test chosen in advance from the decision table: the paired permutation test/);
    // The design says when there is an interval: never at these sizes.
    expect(md).toMatch(/Hedges' g_z and, from 10 participants paired, its 95% bootstrap interval over participants\./);
    // One unit and one n in every section: 3 people paired in compare, topics and concepts.
    expect(md).toMatch(/Unit of analysis: participant \(3 paired participants per comparison\)/);
    expect(md).toMatch(/analysed per participant/);
    expect(md).not.toMatch(/CEO \| run|paired by run/);
    // 3 pairs cannot reach .05: said plainly, not printed as a test.
    expect(md).toMatch(/No tests can reach p (<|&lt;) \.05 at these sizes: with 3 paired participants the smallest two-sided p is \.25/);
    expect(md).toMatch(/cannot reach p (<|&lt;) \.05 with 3 paired participants \(smallest possible p = \.25\); M_diff = -?[\d.]+/);
    expect(md).toMatch(/χ²\(20, N = 372\) = [\d.]+, p = \.\d{3}, V = \.\d\d/);
    expect(md).toMatch(/Cohen's κ = \.\d\d, 95% CI \[\.\d\d, \.\d\d\]/);
    // The chi-square's sparse-table warning reaches the reader.
    expect(md).toMatch(/expected counts below 5.*unreliable/);
  });

  it("states one unit and one n in every section: 3 people paired by id; the measures taken once per session per session, never copied to its people", async () => {
    const md = await readFile(join(dir, "analysis", "report.md"), "utf8");
    const compare = await json("compare-bales-ipa.json");
    const sections = [(await json("topics.json")).conditions, (await json("concepts.json")).conditions].flat() as {
      measure: string;
      level: string;
      unit: string;
      byCondition: Record<string, { n: number }>;
      tests: { n: number }[];
    }[];
    // The demo: 3 conditions of 5 sessions, the same 3 people (humans) in each, agents not paired.
    expect(compare.comparisons.map((c: { nCondition: number; nReference: number; unit: string }) => [c.unit, c.nCondition, c.nReference])).toEqual([
      ["participant", 3, 3],
      ["participant", 3, 3],
    ]);
    for (const m of sections) {
      const expected = m.level === "participant" ? { unit: "participant", n: 3, tested: 3 } : { unit: "session", n: 5, tested: 10 };
      expect([m.measure, m.unit]).toEqual([m.measure, expected.unit]);
      expect(Object.values(m.byCondition).map((s) => s.n)).toEqual([expected.n, expected.n, expected.n]);
      for (const t of m.tests) expect(t.n).toBe(expected.tested);
    }
    expect(sections.filter((m) => m.level === "session").map((m) => m.measure)).toEqual(["sessionConceptRate", "sessionUniqueConcepts"]);
    expect(md).toMatch(
      /Unit of analysis: participant; n per comparison: 3 paired participants\. Measures taken once per session \(concepts per minute \(session\), distinct concepts \(session\)\) are analysed per session \(sessions per condition: control 5, critical 5, socratic 5\)/,
    );
    expect(md).toMatch(/Unit of analysis: participant \(3 paired participants per comparison\)/);
    expect(md).toMatch(/Topics: .*Measured per participant and analysed per participant \(.*n per condition: control 3, critical 3, socratic 3\)/);
    expect(md).toMatch(
      /concepts per minute \(session\), distinct concepts \(session\): measured per session and analysed per session \(.*n per condition: control 5, critical 5, socratic 5\)/,
    );
    expect(md).toMatch(/every difference and effect size is the condition minus the control/);
    expect(md).not.toMatch(/was computed with the .* design, unit/);
  });

  it("copies every number from the analysis files: CSV cells exactly, text rounded from them", async () => {
    const agreement = await json("agreement-bales-ipa.json");
    const pairs = await csv("reliability-bales-ipa-codes-pairs.csv");
    agreement.variables[0].pairs.forEach(
      (p: { a: string; b: string; n: number; kappa: number; kappaCI: { lower: number; upper: number }; ac1: number }, i: number) => {
        const row = pairs.rows[i].cells;
        expect([row["coder A"], row["coder B"]]).toEqual([p.a, p.b]);
        expect(Number(row.turns)).toBe(p.n);
        expect(Number(row.kappa)).toBe(p.kappa);
        expect(Number(row["kappa CI lower"])).toBe(p.kappaCI.lower);
        expect(Number(row["kappa CI upper"])).toBe(p.kappaCI.upper);
        expect(Number(row["Gwet AC1"])).toBe(p.ac1);
      },
    );
    const compare = await json("compare-bales-ipa.json");
    const tests = await csv("codes-bales-ipa-tests.csv");
    const ran = compare.tests.filter((t: { note?: string }) => !(t.note ?? "").startsWith("no acts with this code"));
    expect(tests.rows).toHaveLength(ran.length);
    const md = await readFile(join(dir, "analysis", "report.md"), "utf8");
    for (const t of ran) {
      const row = tests.rows.find(
        (r) =>
          r.cells.test === t.test &&
          r.cells.comparison === (t.condition !== undefined ? `${t.condition} vs ${t.reference}` : `across ${t.across}`) &&
          (t.code === undefined || r.cells.code !== ""),
      )!;
      expect(row, t.test).toBeDefined();
    }
    for (const t of ran.filter((x: { family: string }) => x.family === "chi-square")) {
      const row = tests.rows.find((r) => r.cells.comparison === `across ${t.across}`)!.cells;
      expect(Number(row.statistic)).toBe(t.statistic);
      expect(Number(row.p)).toBe(t.p);
      expect(Number(row.effect)).toBe(t.effectSize);
      // The text's χ² is the file's value rounded.
      expect(md).toContain(`= ${t.statistic.toFixed(2)}, p`);
    }
    const topics = await json("topics.json");
    const byCondition = await csv("topics-by-condition.csv");
    const branching = topics.conditions.find((c: { measure: string }) => c.measure === "branchingRatio");
    for (const [condition, s] of Object.entries(branching.byCondition) as [string, { mean: number; sd: number; n: number; ci95: [number, number] }][]) {
      const row = byCondition.rows.find((r) => r.cells.measure === plainLabel("branchingRatio") && r.cells.condition === condition)!.cells;
      expect(Number(row.mean)).toBe(s.mean);
      expect(Number(row.SD)).toBe(s.sd);
      expect(Number(row["95% CI lower"])).toBe(s.ci95[0]);
      expect(Number(row["95% CI upper"])).toBe(s.ci95[1]);
      expect(md).toContain(
        `${condition}: M = ${s.mean.toFixed(2)}, SD = ${s.sd.toFixed(2)}, 95% CI [${s.ci95[0].toFixed(2)}, ${s.ci95[1].toFixed(2)}], n = ${s.n}`,
      );
      // A branching ratio cannot be negative, and neither can its interval.
      expect(s.ci95[0]).toBeGreaterThanOrEqual(0);
    }
    const stats = await json("stats.json");
    const sample = await csv("sample.csv");
    const turns = sample.rows.reduce((n, r) => n + Number(r.cells.turns), 0);
    expect(turns).toBe(stats.sessions.reduce((n: number, s: { turns: number }) => n + s.turns, 0));
    expect(await readdir(join(dir, "analysis", "report-tables"))).toContain("concepts-tests.csv");
  });

  it("writes self-contained HTML with inline SVG charts, escaping all text", async () => {
    const out = join(dir, "paper.html");
    const run = await runCli(["report", dir, "--format", "html", "--out", out]);
    expect(run.code, run.stderr).toBe(0);
    const html = await readFile(out, "utf8");
    expect(html).toMatch(/^<!doctype html>/);
    expect((html.match(/<svg /g) ?? []).length).toBeGreaterThanOrEqual(3);
    expect(html).not.toMatch(/<script|src="http|href="http/);
    expect(await readdir(join(dir, "paper-tables"))).toContain("sample.csv");
  });

  it("--out: replaces and removes only the tables an earlier report wrote; a CSV of the user's own in the folder survives", async () => {
    const out = join(dir, "mine", "paper.md");
    const tables = join(dir, "mine", "paper-tables");
    await mkdir(tables, { recursive: true });
    await writeFile(join(tables, "my-own-analysis.csv"), "a,b\n1,2\n");
    const first = await runCli(["report", dir, "--out", out]);
    expect(first.code, first.stderr).toBe(0);
    expect(await readFile(join(tables, "my-own-analysis.csv"), "utf8")).toBe("a,b\n1,2\n");
    const manifest = JSON.parse(await readFile(join(tables, ".colloquy-report.json"), "utf8"));
    expect(manifest.tables).toContain("sample.csv");
    expect(manifest.tables).not.toContain("my-own-analysis.csv");
    // A table the previous report wrote and this one no longer has is removed; the user's file stays.
    await writeFile(join(tables, "dropped-table.csv"), "x\n1\n");
    await writeFile(join(dir, "mine", "outside.csv"), "x\n1\n");
    await writeFile(
      join(tables, ".colloquy-report.json"),
      JSON.stringify({ ...manifest, tables: [...manifest.tables, "dropped-table.csv", "../outside.csv"] }),
    );
    const second = await runCli(["report", dir, "--out", out]);
    expect(second.code, second.stderr).toBe(0);
    const files = await readdir(tables);
    expect(files).toContain("my-own-analysis.csv");
    expect(files).toContain("sample.csv");
    expect(files).not.toContain("dropped-table.csv");
    // A manifest entry that is not a plain CSV name in the folder is ignored.
    expect(await readdir(join(dir, "mine"))).toContain("outside.csv");
  });

  it("the dashboard's comparison shows the same design and each test's APA line and caveat", async () => {
    const site = join(dir, "site");
    const bundle = await readSiteBundle(site);
    const set = bundle.compare.find((c: { coder: string }) => c.coder === "rules")!;
    expect(set.design).toMatch(/^within-subject, unit: participant \(paired by participant id\); declared \(colloquy\.json compare\)/);
    const chi = set.tests.find((t: { label: string }) => t.label === "across conditions")!;
    expect(chi.apa).toMatch(/^χ²\(20, N = 372\)/);
    expect(chi.note).toMatch(/expected counts below 5/);
  });

  it("refuses an unknown format", async () => {
    const run = await runCli(["report", dir, "--format", "pdf"]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/--format "pdf": expected md, html/);
  });
});

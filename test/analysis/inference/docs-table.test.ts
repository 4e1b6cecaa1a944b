// docs/statistics.md prints the decision table: every row of src/analysis/inference/decision.ts,
// with its name, effect size, when-to-use and sources, and no row the code does not have.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { decisionTable } from "../../../src/analysis/inference/decision.js";
import { EFFECT_SIZE_NAMES } from "../../../src/analysis/inference/effect-sizes.js";

const doc = readFileSync(new URL("../../../docs/statistics.md", import.meta.url), "utf8");
// The table starts at its "| test id" header and runs to the first line that is not a row.
const lines = doc.split("\n");
const start = lines.findIndex((line) => line.startsWith("| test id"));
const end = lines.findIndex((line, i) => i > start && !line.startsWith("|"));
const rows = lines.slice(start + 2, end).map((line) => line.split("|").map((cell) => cell.trim()));

describe("docs/statistics.md decision table", () => {
  it("has exactly the code's tests", () => {
    expect(rows.map((r) => r[1].replace(/`/g, "")).sort()).toEqual(decisionTable.map((r) => r.test).sort());
  });
  for (const row of decisionTable) {
    it(row.test, () => {
      const cells = rows.find((r) => r[1] === `\`${row.test}\``)!;
      expect(cells.slice(2, 8)).toEqual([row.design, row.default ? "yes" : "no", row.name, EFFECT_SIZE_NAMES[row.effect], row.when, row.sources]);
    });
  }
});

// docs/analysis.md's topics-and-concepts "Tests" bullet once named paired t / Welch as the tests
// while the analyses ran the decision table's defaults: it must name each design's default.
describe("docs/analysis.md topics and concepts tests", () => {
  const analysisDoc = readFileSync(new URL("../../../docs/analysis.md", import.meta.url), "utf8");
  const bullet = analysisDoc
    .slice(analysisDoc.indexOf("- **Tests**"))
    .split(/\n(?!  )/)[0]
    .replace(/\s+/g, " ");
  for (const row of decisionTable.filter((r) => r.default)) {
    it(`names the ${row.design} default, ${row.test}`, () => {
      expect(bullet).toContain(row.name);
    });
  }
});

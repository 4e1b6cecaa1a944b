// The report's sentences about what was tested and on how many units must hold for every code and
// measure they name, not only for the first or for some comparisons (found on ChatCollab: asks-opinion
// was tested in asks_opinion vs control and listed as "not tested"; concepts per minute's n was given
// for every concept measure).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rm } from "node:fs/promises";
import { analysedFixture } from "./analysed-fixture.js";
import { loadStudyData, type StudyData } from "../../src/report/load.js";
import { buildPaper } from "../../src/report/paper/sections.js";
import { plainLabel } from "../../src/report/glossary.js";

let dir: string;
beforeAll(async () => {
  dir = await analysedFixture("colloquy-paper-counts-", [["compare", "--codebook", "bales-ipa", "--coder", "rules"], ["concepts"]]);
}, 120_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const text = (data: StudyData) =>
  buildPaper(data, { version: "test", date: "2026-01-01" })
    .sections.flatMap((s) => s.blocks)
    .flatMap((b) => (b.kind === "paragraph" ? [b.text] : b.kind === "notes" ? b.items : []))
    .join("\n");

describe("report counts", () => {
  it("does not call a code untested when another comparison tested it", async () => {
    const data = await loadStudyData(dir);
    const file = [...data.analysis.compare.values()][0];
    const r = file.value;
    const tested = r.tests.find((t) => t.family !== "chi-square" && t.p !== null)!;
    expect(tested).toBeDefined();
    // A second comparison in which that code has no acts in either condition.
    const other = r.tests
      .filter((t) => t.family !== "chi-square" && t.condition === tested.condition)
      .map((t) =>
        t.code === tested.code
          ? {
              ...t,
              condition: "other",
              statistic: null,
              p: null,
              pAdjusted: undefined,
              effectSize: undefined,
              note: "no acts with this code in either condition: not tested",
            }
          : { ...t, condition: "other" },
      );
    r.tests = [...r.tests, ...other];
    const out = text(data);
    const label = data.codebooks.get(r.codebook.id) as { categories: { id: string; label: string }[] };
    const name = label.categories.find((c) => c.id === tested.code)!.label;
    expect(out).not.toMatch(new RegExp(`Not tested \\(no acts in either condition of any comparison\\):[^\\n]*\\b${name}\\b`));
    expect(out).toContain(`${name} (other vs ${tested.reference})`);
  });

  it("gives each concept measure its own n per condition", async () => {
    const data = await loadStudyData(dir);
    const conditions = data.analysis.concepts!.value.conditions;
    const participantLevel = conditions.filter((c) => c.level === conditions[0].level && c.unit === conditions[0].unit);
    expect(participantLevel.length).toBeGreaterThan(1);
    // A measure other than the group's first has one value fewer in one condition (as a concept
    // rate has for a session whose times span under a minute).
    const shorter = participantLevel[1];
    const [condition, summary] = Object.entries(shorter.byCondition)[0];
    const full = summary.n;
    shorter.byCondition[condition] = { ...summary, n: full - 1, missing: (summary.missing ?? 0) + 1 };
    const out = text(data);
    const sentence = out.split("\n").find((line) => line.startsWith("Concepts: "))!;
    expect(sentence).toContain(`${plainLabel(shorter.measure)}: ${condition} ${full - 1}`);
    expect(sentence).toContain(`${condition} ${full}`);
  });

  it("says whose turns the concept and topic measures counted", async () => {
    const data = await loadStudyData(dir);
    expect(data.analysis.concepts!.value.provenance.speakers).toBe("human");
    const sentence = text(data)
      .split("\n")
      .find((line) => line.startsWith("Concepts: "))!;
    expect(sentence).toMatch(/^Concepts: concepts per minute and lexical measures, counting the turns of human speakers only\./);
  });

  it("names a comparison's coder as below the floor where it says the comparisons use its codes", async () => {
    const data = await loadStudyData(dir);
    const r = [...data.analysis.compare.values()][0].value;
    const set = data.codeSets.find((s) => s.codebook === r.codebook.id && s.coder === r.coder)!;
    expect(text(data)).not.toContain("BELOW FLOOR");
    for (const record of set.records) record.provenance = { ...record.provenance, validation: { status: "below-floor", kappa: 0.17 } };
    const sentence = text(data)
      .split("\n")
      .find((line) => line.includes("Comparisons use"))!;
    expect(sentence).toContain(`(version ${r.codebook.version}): BELOW FLOOR, kappa 0.17: check before use`);
  });

  // A person who coded part of the turns as analysisCoder: the comparisons count only those.
  it("says how many turns the comparison's coder left without a code where it names the coder", async () => {
    const data = await loadStudyData(dir);
    const file = [...data.analysis.compare.values()][0];
    const sentence = () =>
      text(data)
        .split("\n")
        .find((line) => line.includes("Comparisons use"))!;
    file.value = { ...file.value, acts: { ...file.value.acts, uncodedTurns: 0 } };
    expect(sentence()).not.toContain("without a code");
    file.value = { ...file.value, acts: { ...file.value.acts, uncodedTurns: 186 } };
    expect(sentence()).toContain(`(version ${file.value.codebook.version}): 186 turns without a code from this coder left out.`);
  });
});

// The chi-square over acts across roles says it is not a test of the roles (it said "of the
// conditions", on ChatCollab's roles × codes table).
import { describe, expect, it } from "vitest";
import { loadCodebook } from "../../../src/coding/codebook/load.js";
import type { NominalCodebook } from "../../../src/coding/codebook/schema.js";
import { codedTurns } from "../../../src/analysis/shared/table.js";
import { compareConditions } from "../../../src/analysis/compare/compare.js";
import { makeSession, recordsFor } from "./fixture.js";

const bales = (await loadCodebook("bales-ipa")) as NominalCodebook;
const labels = bales.categories.map((c) => c.id);

describe("chi-square notes", () => {
  it("name the roles for the roles table and the conditions for the conditions table", () => {
    const roles = { Ann: "client", Bo: "developer" };
    const built = ["a", "b"].flatMap((condition) =>
      [1, 2].map((run) =>
        makeSession(
          `${condition}-${run}`,
          condition,
          String(run),
          [
            { who: "Ann", code: "agrees" },
            { who: "Ann", code: "agrees" },
            { who: "Bo", code: "gives-opinion" },
            { who: "Bo", code: condition === "a" ? "gives-opinion" : "agrees" },
          ],
          { roles },
        ),
      ),
    );
    const r = compareConditions(
      codedTurns(
        built.map((b) => b.session),
        built.flatMap((b) => recordsFor(b.session, b.codes)),
        labels,
      ),
      { control: "a" },
    );
    const note = (across: string) => r.tests.find((t) => t.family === "chi-square" && t.across === across)!.note ?? "";
    expect(note("roles")).toMatch(/this p is not a test of the roles/);
    expect(note("conditions")).toMatch(/this p is not a test of the conditions/);
  });
});

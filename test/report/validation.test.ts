import { describe, expect, it } from "vitest";
import { codeValuesDigest, emptySummary, summariseRecords, summaryDigest, type CodeRecord } from "../../src/coding/records.js";
import { codeSetValidation, validationLabel } from "../../src/report/shape/validation.js";

// What the dashboard's overview and the report's coding table say about each coder's codes.
describe("a code set's validation, as the dashboard and the report show it", () => {
  const at = "2026-12-07T10:00:00.000Z";
  const summary = (validation: { status: string; kappa?: number }, trainings: Record<string, string>[] = []) => ({
    ...emptySummary(),
    validation: { ...validation, at },
    trainings: new Set(trainings),
  });
  const label = (coder: string, s: Parameters<typeof codeSetValidation>[1], digestOf?: (c: string) => string | undefined) =>
    validationLabel(codeSetValidation(coder, s, digestOf));

  it("names people, validated, below-floor, unvalidated and unrecorded coders", () => {
    expect(label("human:alice", emptySummary())).toBe("people");
    expect(label("learned", summary({ status: "validated", kappa: 0.6213 }))).toBe("validated on this study, kappa 0.62");
    expect(label("learned", summary({ status: "below-floor", kappa: 0.39 }))).toBe("BELOW FLOOR, kappa 0.39: check before use");
    expect(label("rules", summary({ status: "unvalidated" }))).toBe("NOT VALIDATED on this study");
    expect(label("llm", emptySummary())).toBe("not recorded");
  });

  const code = (turn: string, codes: string[], createdAt = at): CodeRecord => ({
    session: "s1",
    turn,
    codebook: "bales-ipa",
    codebookVersion: "1.0.0",
    coder: "human:alice",
    codes,
    provenance: { tool: "colloquy", version: "0", createdAt },
    createdAt,
  });

  it("a learned coder's codes are out of date when the codes of a person it trained on say something else now, whenever stored", () => {
    const alice = [code("t1", ["agrees"]), code("t2", ["disagrees"])];
    const trained = summary({ status: "validated", kappa: 0.62 }, [{ "human:alice": codeValuesDigest(alice) }]);
    const now = (records: CodeRecord[]) => (coder: string) => (coder === "human:alice" ? summariseRecordsDigest(records) : undefined);
    // The same codes stored again later, in another order: not out of date (no new training would change anything).
    const again = [code("t2", ["disagrees"], "2026-12-08T09:00:00Z"), code("t1", ["agrees"], "2026-12-08T09:00:00Z")];
    expect(label("learned", trained, now(again))).toBe("validated on this study, kappa 0.62");
    // One code changed, one added, or all removed: out of date.
    for (const records of [[code("t1", ["agrees"]), code("t2", ["agrees"])], [...alice, code("t3", ["agrees"])], []])
      expect(label("learned", trained, now(records))).toBe(
        "validated on this study, kappa 0.62; OUT OF DATE: human codes changed since it was trained (run colloquy code again)",
      );
    // Some sessions recoded after a new training, the others still the old one's: out of date.
    const newer = [...alice, code("t3", ["agrees"])];
    const mixed = summary({ status: "validated", kappa: 0.62 }, [{ "human:alice": codeValuesDigest(alice) }, { "human:alice": codeValuesDigest(newer) }]);
    expect(codeSetValidation("learned", mixed, now(newer)).outOfDate).toBe(true);
    // Codes made before trainings were recorded, and rules codes, are never marked.
    expect(codeSetValidation("learned", summary({ status: "validated" }), now([])).outOfDate).toBeUndefined();
  });
});

/** A person's codes as the overview digests them (summariseRecords), equal to codeValuesDigest. */
function summariseRecordsDigest(records: CodeRecord[]): string {
  const digest = codeValuesDigest(records);
  expect(summaryDigest(summariseRecords(records))).toBe(digest);
  return digest;
}

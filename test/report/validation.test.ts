import { describe, expect, it } from "vitest";
import { codeSetValidation, validationLabel } from "../../src/report/shape/validation.js";

// What the dashboard's overview and the report's coding table say about each coder's codes.
describe("a code set's validation, as the dashboard and the report show it", () => {
  const at = "2026-12-07T10:00:00.000Z";
  const label = (coder: string, recorded: Parameters<typeof codeSetValidation>[1], last?: (c: string) => string | undefined) =>
    validationLabel(codeSetValidation(coder, recorded, last));

  it("names people, validated, below-floor, unvalidated and unrecorded coders", () => {
    expect(label("human:alice", undefined)).toBe("people");
    expect(label("learned", { status: "validated", kappa: 0.6213, at })).toBe("validated on this study, kappa 0.62");
    expect(label("learned", { status: "below-floor", kappa: 0.39, at })).toBe("BELOW FLOOR, kappa 0.39: check before use");
    expect(label("rules", { status: "unvalidated", at })).toBe("NOT VALIDATED on this study");
    expect(label("llm", undefined)).toBe("not recorded");
  });

  it("a learned coder's codes are out of date once a human coder it trained on has newer codes", () => {
    const recorded = { status: "validated", kappa: 0.62, at, trainedOn: ["human:alice"] };
    const lastOf = (times: Record<string, string>) => (coder: string) => times[coder];
    expect(label("learned", recorded, lastOf({ "human:alice": "2026-12-07T09:00:00.000Z" }))).toBe("validated on this study, kappa 0.62");
    // Another person's newer codes are not what it trained on.
    expect(label("learned", recorded, lastOf({ "human:alice": "2026-12-07T09:00:00.000Z", "human:bob": "2026-12-08T09:00:00.000Z" }))).toBe(
      "validated on this study, kappa 0.62",
    );
    expect(label("learned", recorded, lastOf({ "human:alice": "2026-12-07T11:00:00.000Z" }))).toBe(
      "validated on this study, kappa 0.62; OUT OF DATE: human codes were stored after it was trained (run colloquy code again)",
    );
    expect(codeSetValidation("learned", { ...recorded, status: "below-floor" }, lastOf({ "human:alice": "2026-12-07T11:00:00.000Z" }))).toEqual({
      status: "below-floor",
      kappa: 0.62,
      outOfDate: true,
    });
  });
});

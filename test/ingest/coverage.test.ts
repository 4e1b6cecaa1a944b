import { describe, expect, it } from "vitest";
import type { ImportResult } from "../../src/ingest/types.js";
import { assertNothingDropped } from "../support/coverage.js";

const result = (texts: string[], metadata: Record<string, unknown> = {}): ImportResult => ({
  sessions: [
    {
      id: "s",
      metadata,
      participants: [{ id: "a", name: "Ann", kind: "human" }],
      turns: texts.map((text, index) => ({ id: `t${index}`, index, speaker: "a", text })),
    },
  ],
  codes: [],
  warnings: [],
});

describe("assertNothingDropped (the test helper every importer test relies on)", () => {
  it("passes when every line is in a turn or in metadata", () => {
    expect(() => assertNothingDropped("\uFEFFhello\r\n  world  \n\nnote", result(["hello\nworld"], { preamble: "note" }))).not.toThrow();
  });
  it("fails and names the line when a line is missing", () => {
    expect(() => assertNothingDropped("hello\nlost words\n", result(["hello"]))).toThrow(/line 2: "lost words"/);
  });
  it("skips only lines matched by the ignorable patterns", () => {
    expect(() => assertNothingDropped("hello\nNew\n", result(["hello"]), [/^New$/])).not.toThrow();
    expect(() => assertNothingDropped("hello\nNews\n", result(["hello"]), [/^New$/])).toThrow(/News/);
  });
  it("checks structured sources piece by piece", () => {
    expect(() => assertNothingDropped(["a\nb", "c"], result(["a", "b"]))).toThrow(/piece 1, line 1: "c"/);
  });
});

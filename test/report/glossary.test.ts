// One glossary for every name a reader sees: the report, the dashboard (test names, measure
// labels) and the exports' data dictionaries put program names in plain words through it.
import { describe, expect, it } from "vitest";
import { coderLabel, codesBy, columnLabel, inPlainWords, plainLabel } from "../../src/report/glossary.js";

const INTERNAL = /\b[a-z]+(?:[A-Z][a-z0-9]*)+\b/;

describe("glossary", () => {
  it("maps the analysis files' names to words, and splits an unlisted camelCase name", () => {
    expect(plainLabel("branchingRatio")).toBe("branching ratio (sub-topics per main topic)");
    expect(plainLabel("pairedTTest")).toBe("paired t-test");
    expect(plainLabel("turnsPerMinute")).toBe("turns per minute");
    expect(inPlainWords("excludedTurns were left out of wordsPerUtterance")).toBe("turns left out (system or reasoning) were left out of words per turn");
    expect(inPlainWords("Welch's t-test, control vs debate")).toBe("Welch's t-test, control vs debate");
  });

  it("names export columns in words: snake_case, score_ and camelCase names", () => {
    expect(columnLabel("share_of_turns")).toBe("share of turns");
    expect(columnLabel("latency_s")).toBe("latency (seconds)");
    expect(columnLabel("score_formality")).toBe("formality rating");
    expect(columnLabel("wordsPerUtterance")).toBe("words per turn");
    for (const name of ["session", "speaker_id", "codebook_version", "created_at", "received_at", "excludedTurns", "score_politenessLevel"])
      expect(columnLabel(name), name).not.toMatch(new RegExp(`${INTERNAL.source}|_`));
  });

  it('names coders as a reader would, never as "rules\'s"', () => {
    expect(codesBy("rules", "bales-ipa")).toBe("bales-ipa codes by the offline rules");
    expect(coderLabel("human:alice")).toBe("alice");
    expect(coderLabel("llm:gpt")).toBe("the LLM coder (gpt)");
  });
});

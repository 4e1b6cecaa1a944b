import { describe, expect, it } from "vitest";
import { elanImporter } from "../../src/ingest/formats/elan.js";
import { importFixture, speakerName } from "./json/helpers.js";

describe("elan: which tiers are speech", () => {
  it("reads the words from the dependent tier of an id tier, skips a tier without PARTICIPANT and empty annotations, and says so", async () => {
    const { sessions, result } = await importFixture(elanImporter, "elan/id-tier-with-utterance-child-and-unnamed-tier.eaf");
    const [s] = sessions;
    expect(s.turns.map((t, i) => [speakerName(s, i), t.text])).toEqual([
      ["Teodora", "the boat left before sunrise"],
      ["Teodora", "and nobody saw it go"],
      ["Marko", "who took it then"],
    ]);
    expect(s.participants.map((p) => p.name)).toEqual(["Teodora", "Marko"]);
    // The ids and the free translation stay with the utterance they belong to.
    expect(s.turns[0].metadata?.tiers).toEqual({ "ref@TD": ["u01"], "ft@TD": ["free translation one"] });
    expect(s.metadata.skippedTiers).toEqual([
      { tier: "episode", reason: "names no PARTICIPANT while other tiers do" },
      { tier: "ref@TD", reason: 'holds utterance ids; the words are in its dependent tier "tx@TD"' },
    ]);
    expect(s.metadata.orphanAnnotations).toEqual([expect.objectContaining({ tier: "episode", value: "opening scene" })]);
    expect(result.warnings).toEqual([
      expect.stringMatching(/skipped "episode" \(names no PARTICIPANT while other tiers do\), "ref@TD"/),
      expect.stringContaining("1 empty annotation(s) on speech tiers are not turns"),
    ]);
  });

  it("keeps the finer of two segmentations of one speaker and skips notes and gesture tiers", async () => {
    const { sessions, result } = await importFixture(elanImporter, "elan/two-segmentations-notes-and-gesture-tiers.eaf");
    const [s] = sessions;
    expect(s.participants.map((p) => p.name)).toEqual(["Narrator Unit", "Listener"]);
    expect(s.turns.map((t) => t.text)).toEqual(["once there was", "a fox ...", "it was", "hungry", "so it went out", "mm-hm"]);
    expect((s.metadata.skippedTiers as { tier: string }[]).map((t) => t.tier)).toEqual(["Field notes", "Listener gesture", "Narrator Sentence"]);
    expect(result.warnings[0]).toContain('"Narrator Sentence" (segments the same speech as "Narrator Unit" more coarsely)');
  });
});

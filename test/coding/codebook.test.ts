import { describe, expect, it } from "vitest";
import { loadCodebook, parseCodebook, shippedCodebookIds } from "../../src/coding/codebook/load.js";
import type { NominalCodebook, ScalesCodebook } from "../../src/coding/codebook/schema.js";

/** The fixed ids of /work/notes/bales-ids.md, in Bales' order (1..12, then 13 fallback). */
const BALES_IDS = [
  "shows-solidarity",
  "shows-tension-release",
  "agrees",
  "gives-suggestion",
  "gives-opinion",
  "gives-orientation",
  "asks-orientation",
  "asks-opinion",
  "asks-suggestion",
  "disagrees",
  "shows-tension",
  "shows-antagonism",
  "none",
];

const AREAS: Record<string, number[]> = {
  "positive-reactions": [1, 2, 3],
  "attempted-answers": [4, 5, 6],
  questions: [7, 8, 9],
  "negative-reactions": [10, 11, 12],
};
const PROBLEMS: Record<string, number[]> = {
  orientation: [6, 7],
  evaluation: [5, 8],
  control: [4, 9],
  decision: [3, 10],
  "tension-reduction": [2, 11],
  integration: [1, 12],
};

describe("shipped codebooks", () => {
  it("are exactly bales-ipa, pragmatic-style and ttct-creativity, all valid", async () => {
    expect(await shippedCodebookIds()).toEqual(["bales-ipa", "pragmatic-style", "ttct-creativity"]);
    for (const id of await shippedCodebookIds()) {
      const codebook = await loadCodebook(id);
      expect(codebook.id).toBe(id);
      expect(codebook.references?.length).toBeGreaterThan(0);
    }
  });

  it("bales-ipa has Bales' 12 categories in his order, 13 as fallback, the standard glosses and 2-4 examples", async () => {
    const bales = (await loadCodebook("bales-ipa")) as NominalCodebook;
    expect(bales.kind).toBe("nominal");
    expect(bales.multiple).toBe(false);
    expect(bales.categories.map((c) => c.id)).toEqual(BALES_IDS);
    expect(bales.fallback).toBe("none");
    expect(bales.categories[0]!.definition).toContain("raises other's status, gives help, reward");
    expect(bales.categories[2]!.definition).toContain("shows passive acceptance, understands, concurs, complies");
    expect(bales.categories[11]!.definition).toContain("deflates other's status, defends or asserts self");
    bales.categories.forEach((c, i) => {
      expect(c.aliases, c.id).toContain(String(i + 1));
      expect(c.aliases, c.id).toContain(c.label);
      expect(c.examples.length, c.id).toBeGreaterThanOrEqual(2);
      expect(c.examples.length, c.id).toBeLessThanOrEqual(4);
      if (i < 12) expect(c.definition.startsWith(`${i + 1}. ${c.label}:`), c.id).toBe(true);
    });
  });

  it("bales-ipa groups: four areas and six problem pairs with the right members", async () => {
    const bales = (await loadCodebook("bales-ipa")) as NominalCodebook;
    const members = (group: string) => bales.categories.flatMap((c, i) => (c.groups?.includes(group) ? [i + 1] : []));
    for (const [id, numbers] of Object.entries(AREAS)) {
      expect(bales.groups.find((g) => g.id === id)?.kind).toBe("area");
      expect(members(id)).toEqual(numbers);
    }
    for (const [id, numbers] of Object.entries(PROBLEMS)) {
      expect(bales.groups.find((g) => g.id === id)?.kind).toBe("problem");
      expect(members(id)).toEqual(numbers);
    }
    expect(bales.groups).toHaveLength(10);
  });

  it("bales-ipa aliases are unique across categories (imported human codes map to one category)", async () => {
    const bales = (await loadCodebook("bales-ipa")) as NominalCodebook;
    const seen = new Map<string, string>();
    for (const c of bales.categories) {
      for (const alias of c.aliases ?? []) {
        const key = alias.toLowerCase();
        expect(seen.get(key), `alias "${alias}" of ${c.id}`).toBeUndefined();
        seen.set(key, c.id);
      }
    }
  });

  it("pragmatic-style has the five 7-point scales with an anchor for every point", async () => {
    const style = (await loadCodebook("pragmatic-style")) as ScalesCodebook;
    expect(style.kind).toBe("scales");
    expect(style.scales.map((s) => s.id)).toEqual(["sentiment", "formality", "directness", "relationship", "participation"]);
    for (const s of style.scales) {
      expect(s.points).toBe(7);
      expect(s.anchors).toHaveLength(7);
    }
    expect(style.scales[3]!.anchors[0]).toMatch(/hierarchical/i);
    expect(style.scales[3]!.anchors[6]).toMatch(/equal/i);
    expect(style.scales[4]!.anchors[0]).toMatch(/passive/i);
    expect(style.scales[4]!.anchors[6]).toMatch(/very active/i);
  });

  it("ttct-creativity: originality and elaboration 1-5 per idea, fluency and flexibility counts per idea list", async () => {
    const ttct = (await loadCodebook("ttct-creativity")) as ScalesCodebook;
    expect(ttct.scales.map((s) => [s.id, s.points, s.unit])).toEqual([
      ["originality", 5, "idea"],
      ["elaboration", 5, "idea"],
    ]);
    expect(ttct.counts.map((c) => [c.id, c.unit])).toEqual([
      ["fluency", "idea-list"],
      ["flexibility", "idea-list"],
    ]);
    expect(ttct.references?.join(" ")).toMatch(/Torrance/);
  });

  it("a broken codebook names the field", () => {
    expect(() =>
      parseCodebook(
        JSON.stringify({
          id: "x",
          version: "1",
          title: "t",
          kind: "scales",
          scales: [{ id: "s", label: "S", definition: "d", points: 3, anchors: ["a", "b"] }],
        }),
        "mine.json",
      ),
    ).toThrow(/mine\.json: invalid codebook: scales\[0\]\.anchors: needs exactly one anchor per point/);
  });

  it("a YAML codebook reads as its JSON does; broken YAML names the file", () => {
    const yaml = [
      "id: x",
      "version: '1'",
      "title: t",
      "kind: scales",
      "scales:",
      "  - id: s",
      "    label: S",
      "    definition: d",
      "    points: 2",
      "    anchors: [low, high]",
    ].join("\n");
    const json = { id: "x", version: "1", title: "t", kind: "scales", scales: [{ id: "s", label: "S", definition: "d", points: 2, anchors: ["low", "high"] }] };
    expect(parseCodebook(yaml, "mine.yaml")).toEqual(parseCodebook(JSON.stringify(json), "mine.json"));
    expect(() => parseCodebook("id: [x", "mine.yml")).toThrow(/^mine\.yml: not valid YAML \(/);
  });
});

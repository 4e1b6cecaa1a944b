import { describe, expect, it } from "vitest";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chooseCodebook, chosenCodebook } from "../../src/stages/codebook-choice.js";
import { studyConfigSchema } from "../../src/study/config.js";

/** A study as the rule sees it: its folder (a study-made codebook "talk" in codebooks/), its colloquy.json codebooks and who coded what. */
async function study(codebooks: { codebook: string }[] | undefined, coders: Record<string, string[]>) {
  const dir = await mkdtemp(join(tmpdir(), "colloquy-codebook-choice-"));
  await mkdir(join(dir, "codebooks"));
  const talk = {
    id: "talk",
    version: "1",
    title: "Talk",
    kind: "nominal",
    categories: [
      { id: "asks", label: "Asks", definition: "asks something" },
      { id: "tells", label: "Tells", definition: "tells something" },
    ],
  };
  await writeFile(join(dir, "codebooks", "talk.json"), JSON.stringify(talk));
  const config = studyConfigSchema.parse(codebooks ? { codebooks } : {});
  return { dir, config, coders: async () => coders };
}

describe("the one default rule for --codebook", () => {
  it("takes the codebook given, whatever colloquy.json lists", async () => {
    const s = await study(undefined, {});
    expect(await chooseCodebook(s, "ttct-creativity", { command: "sheet" })).toBe("ttct-creativity");
  });

  it("else the first codebook colloquy.json lists that the command can use (nominal; with codes; coded by the named coders)", async () => {
    // The default colloquy.json lists bales-ipa (categories), then pragmatic-style (scales).
    const s = await study(undefined, { "pragmatic-style": ["rules"], "bales-ipa": ["rules", "human:alice"] });
    expect(await chooseCodebook(s, undefined, { command: "sheet" })).toBe("bales-ipa");
    expect(await chooseCodebook(s, undefined, { command: "compare", nominal: true, coded: true })).toBe("bales-ipa");
    const listedScalesFirst = await study([{ codebook: "pragmatic-style" }, { codebook: "bales-ipa" }], { "pragmatic-style": ["rules"] });
    expect(await chooseCodebook(listedScalesFirst, undefined, { command: "sheet" })).toBe("pragmatic-style");
    expect(await chooseCodebook(listedScalesFirst, undefined, { command: "annotate", nominal: true })).toBe("bales-ipa");
    // Only the listed codebook human:bob coded.
    const bob = await study([{ codebook: "bales-ipa" }, { codebook: "pragmatic-style" }], {
      "bales-ipa": ["rules"],
      "pragmatic-style": ["rules", "human:bob"],
    });
    expect(await chooseCodebook(bob, undefined, { command: "agree", coded: ["rules", "human:bob"] })).toBe("pragmatic-style");
  });

  it("else the only codebook the study has codes of that fits, by its id", async () => {
    const s = await study([{ codebook: "pragmatic-style" }], { talk: ["human:alice"], "pragmatic-style": ["rules"] });
    expect(await chosenCodebook(s, undefined, { command: "compare", nominal: true, coded: true })).toEqual({ ref: "talk", id: "talk" });
  });

  it("else an error listing the choices, or saying there are none and what to do", async () => {
    const several = await study([{ codebook: "pragmatic-style" }], { talk: ["human:alice"], "bales-ipa": ["human:alice"] });
    await expect(chooseCodebook(several, undefined, { command: "compare", nominal: true, coded: true })).rejects.toThrow(
      'compare: no --codebook given, and colloquy.json lists no nominal codebook (categories) with codes while the study has several: bales-ipa, talk; choose one with --codebook <id> (or list it first under "codebooks" in colloquy.json)',
    );
    const none = await study(undefined, {});
    await expect(chooseCodebook(none, undefined, { command: "compare", nominal: true, coded: true })).rejects.toThrow(
      "has no nominal codebook (categories) with codes (colloquy.json lists bales-ipa, pragmatic-style); code the turns first",
    );
    // Codes of something the study cannot load as a codebook (topic reviews) are no candidate.
    const reviews = await study([], { "topic-review": ["human:ann"] });
    await expect(chooseCodebook(reviews, undefined, { command: "agree", coded: ["human:ann"] })).rejects.toThrow("has no codebook coded by human:ann");
  });
});

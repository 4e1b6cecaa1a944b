import { describe, expect, it } from "vitest";
import { loadCodebook } from "../../src/coding/codebook/load.js";
import { createLearnedCoder, DEFAULT_PROTOTYPE_WEIGHT, learnedGrid } from "../../src/coding/learned/coder.js";
import { turnTerms } from "../../src/coding/learned/features.js";
import { predictLearned, trainLearnedModel, withPrototypes, type ModelSettings } from "../../src/coding/learned/model.js";
import { codebookPrototypes } from "../../src/coding/learned/prototypes.js";
import { SETTINGS_GRID } from "../../src/coding/learned/validate.js";
import type { CodeRecord } from "../../src/coding/records.js";
import { codebookPlanSchema } from "../../src/study/config.js";
import type { Session } from "../../src/transcript/schema.js";

const bales = await loadCodebook("bales-ipa");

function session(id: string, texts: readonly string[]): Session {
  return {
    schemaVersion: 1,
    id,
    metadata: {},
    participants: [{ id: "a", name: "a", kind: "human" }],
    turns: texts.map((text, index) => ({ id: `t${index}`, index, speaker: "a", text, type: "message" as const })),
  };
}
const termsOf = (text: string) => turnTerms(session("x", [text]), 0);

/** Six sessions of two turns each: an agreement and a question for orientation, nothing else. */
const sessions = Array.from({ length: 6 }, (_, s) =>
  session(`s${s}`, [
    ["Yes, agreed.", "Sure, fine by me.", "Agreed, go ahead.", "Yes, that works.", "Okay, agreed.", "Fine, yes."][s],
    `When is the meeting ${s}?`,
  ]),
);
const training: CodeRecord[] = sessions.flatMap((s) =>
  s.turns.map(
    (t, i) => ({ session: s.id, turn: t.id, coder: "human:a", codebook: "bales-ipa", codes: [i === 0 ? "agrees" : "asks-orientation"] }) as CodeRecord,
  ),
);
const examples = sessions.flatMap((s) => s.turns.map((t, i) => ({ terms: turnTerms(s, i), codes: [i === 0 ? "agrees" : "asks-orientation"] })));

describe("learned coder: the codebook's example utterances as training turns", () => {
  it("are each category's examples and the counter-examples whose right code is named, as text-only turns of the weight given", () => {
    const prototypes = codebookPrototypes(bales, 0.3);
    const named = bales.kind === "nominal" ? bales.categories.flatMap((c) => (c.counterExamples ?? []).filter((x) => /:\s*\d+\)$/.test(x))) : [];
    const all = bales.kind === "nominal" ? bales.categories.reduce((n, c) => n + c.examples.length, 0) : 0;
    expect(prototypes).toHaveLength(all + named.length);
    expect(prototypes.every((p) => p.weight === 0.3 && p.terms.blocks[2].bucket.length === 0)).toBe(true);
    // "Great, that works for me. (agrees: 3)" under shows-solidarity is a turn of agrees, without its note.
    const great = termsOf("Great, that works for me.");
    const found = prototypes.filter((p) => JSON.stringify(p.terms.blocks.slice(0, 2)) === JSON.stringify(great.blocks.slice(0, 2)));
    expect(found.map((p) => p.codes)).toEqual([["agrees"]]);
    // "(the task act governs)" names no category: left out.
    const governs = termsOf("Thanks, that's hilarious but we need the numbers first.");
    expect(prototypes.some((p) => JSON.stringify(p.terms.blocks[0]) === JSON.stringify(governs.blocks[0]))).toBe(false);
    expect(codebookPrototypes(bales, 0)).toEqual([]);
  });

  it("a scales codebook has none", async () => {
    expect(codebookPrototypes(await loadCodebook("pragmatic-style"), 1)).toEqual([]);
  });

  it("teach the model the categories no human coded yet, at their weight", () => {
    const welcome = termsOf("Welcome to the team, glad you could join us!");
    const without: ModelSettings = { c: 3, text: true, context: true, balanced: true };
    const plain = trainLearnedModel(bales, examples, without);
    expect(plain.heads[0].classes).toEqual(["agrees", "asks-orientation"]);
    const taught = trainLearnedModel(bales, examples, { ...without, prototypes: DEFAULT_PROTOTYPE_WEIGHT });
    expect(taught.heads[0].classes).toHaveLength(bales.kind === "nominal" ? bales.categories.length : 0);
    // Of the categories no person used, the welcome is most like the codebook's solidarity examples.
    const p = predictLearned(taught, welcome).probabilities;
    const unused = Object.keys(p).filter((c) => c !== "agrees" && c !== "asks-orientation");
    expect(unused.sort((a, b) => p[b] - p[a])[0]).toBe("shows-solidarity");
    expect(p["shows-solidarity"]).toBeGreaterThan(predictLearned(taught, termsOf("When is the meeting?")).probabilities["shows-solidarity"]);
    // The human codes keep their say: their own turns are still coded as the people coded them.
    for (const e of examples) expect(predictLearned(taught, e.terms).codes).toEqual(e.codes);
    // A weight is a weight: the prototypes count less at 0.01 than at 0.3.
    const faint = trainLearnedModel(bales, examples, { ...without, prototypes: 0.01 });
    expect(predictLearned(faint, welcome).probabilities["shows-solidarity"]).toBeLessThan(predictLearned(taught, welcome).probabilities["shows-solidarity"]);
    // No prototypes, no change: the same examples as before.
    expect(withPrototypes(bales, examples, without)).toBe(examples);
  });

  it("are a setting of the coder: in its grid, its stored settings and its training hash", () => {
    expect(learnedGrid(0)).toBe(SETTINGS_GRID);
    expect(learnedGrid(0.5).every((s) => s.prototypes === 0.5)).toBe(true);
    const base = { codebook: bales, sessions, training, trainedOn: ["human:a"] };
    const byDefault = createLearnedCoder(base);
    const none = createLearnedCoder({ ...base, prototypeWeight: 0 });
    const again = createLearnedCoder({ ...base, training: [...training].reverse() });
    expect(byDefault.validation.settings.prototypes).toBe(DEFAULT_PROTOTYPE_WEIGHT);
    expect((byDefault.settings.modelSettings as ModelSettings).prototypes).toBe(DEFAULT_PROTOTYPE_WEIGHT);
    expect(none.validation.settings.prototypes).toBeUndefined();
    expect(none.trainingHash).not.toBe(byDefault.trainingHash);
    expect(again.trainingHash).toBe(byDefault.trainingHash);
    const turn = session("new", ["Welcome aboard, great to have you with us!"]);
    expect(again.predict(turn, 0)).toEqual(byDefault.predict(turn, 0));
  });

  it("colloquy.json: codebookExamples is a learned-coder setting", () => {
    expect(codebookPlanSchema.safeParse({ codebook: "bales-ipa", coders: ["learned"], train: ["human:a"], codebookExamples: 0 }).success).toBe(true);
    expect(codebookPlanSchema.safeParse({ codebook: "bales-ipa", coders: ["rules"], codebookExamples: 0.3 }).success).toBe(false);
    expect(codebookPlanSchema.safeParse({ codebook: "bales-ipa", coders: ["learned"], train: ["human:a"], codebookExamples: -1 }).success).toBe(false);
  });
});

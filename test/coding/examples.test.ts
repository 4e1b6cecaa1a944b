import { describe, expect, it } from "vitest";
import { loadCodebook } from "../../src/coding/codebook/load.js";
import { createExamplePicker } from "../../src/coding/llm/examples.js";
import { buildMessages, renderExamples } from "../../src/coding/llm/prompt.js";
import type { CodeRecord } from "../../src/coding/records.js";
import { makeSession } from "./llm-fixtures.js";

const a = makeSession("a", ["Shall we talk about the budget?", "The budget looks tight.", "Thanks a lot.", "Budget first, then the timeline?"]);
const b = makeSession("b", ["What about the budget?", "I like the timeline.", "Thank you."]);
const c = makeSession("c", ["Unrelated words entirely.", "Nothing shared here."]);

function rec(session: string, turn: string, codes: string[], coder = "human:alice"): CodeRecord {
  return { session, turn, codebook: "bales-ipa", codebookVersion: "1", coder, codes, provenance: {}, createdAt: "2024-01-01T00:00:00Z" };
}

const alice = [
  rec("a", "t0000", ["asks-opinion"]),
  rec("a", "t0001", ["gives-opinion"]),
  rec("a", "t0002", ["shows-solidarity"]),
  rec("a", "t0003", ["asks-opinion"]),
  rec("b", "t0000", ["asks-opinion"]),
  rec("b", "t0001", ["gives-opinion"]),
  rec("c", "t0000", ["gives-opinion"]),
  rec("c", "t0001", ["gives-opinion"]),
];

describe("worked examples from human codes", async () => {
  const codebook = await loadCodebook("bales-ipa", ".");
  const picker = (shots: number, excludeSession = false, records = alice) =>
    createExamplePicker({ codebook, sessions: [a, b, c], records: [{ coder: "human:alice", records }], shots, excludeSession });

  it("picks the most similar coded turns, never the target, deterministically", () => {
    const shown = picker(3).pick(b, [0]);
    expect(shown).toHaveLength(3);
    expect(shown.map((e) => `${e.session}/${e.turn}`)).not.toContain("b/t0000");
    expect(shown[0]).toMatchObject({ session: "a", coder: "human:alice" });
    expect(shown[0].text).toMatch(/budget/i);
    expect(shown[0].similarity).toBeGreaterThan(shown[2].similarity);
    expect(picker(3).pick(b, [0])).toEqual(shown);
    expect(shown[0].codes?.[0]).toEqual({ id: expect.any(String), label: expect.any(String) });
  });

  it("with excludeSession never shows a turn of the target's session", () => {
    const shown = picker(20, true).pick(b, [2]);
    expect(shown.length).toBe(6); // the 8 coded turns minus session b's 2
    expect(shown.every((e) => e.session !== "b")).toBe(true);
  });

  it("breaks ties by session, then turn order", () => {
    // No word in common with any example: every score is 0, so the order is the study's.
    const odd = makeSession("z", ["Zzz qqq."]);
    const shown = createExamplePicker({ codebook, sessions: [a, b, c, odd], records: [{ coder: "human:alice", records: alice }], shots: 3 }).pick(odd, [0]);
    expect(shown.map((e) => `${e.session}/${e.turn}`)).toEqual(["a/t0000", "a/t0001", "a/t0002"]);
    expect(shown.every((e) => e.similarity === 0)).toBe(true);
  });

  it("a batch excludes every target and is picked by their words together", () => {
    const shown = picker(8).pick(a, [0, 1]);
    expect(shown.map((e) => `${e.session}/${e.turn}`)).not.toEqual(expect.arrayContaining(["a/t0000"]));
    expect(shown.some((e) => e.session === "a" && (e.turn === "t0000" || e.turn === "t0001"))).toBe(false);
    expect(shown).toHaveLength(6);
  });

  it("a turn coded by several coders is shown once, with the first coder's code; unknown codes are not shown", () => {
    const bob = [rec("a", "t0001", ["asks-orientation"], "human:bob"), rec("c", "t0000", ["no-such-category"], "human:bob")];
    const p = createExamplePicker({
      codebook,
      sessions: [a, b, c],
      records: [
        { coder: "human:bob", records: bob },
        { coder: "human:alice", records: alice },
      ],
      shots: 20,
    });
    expect(p.poolSize).toBe(8);
    const shown = p.pick(c, [1]);
    expect(shown.find((e) => e.turn === "t0001" && e.session === "a")).toMatchObject({ coder: "human:bob", codes: [{ id: "asks-orientation" }] });
    expect(shown.find((e) => e.turn === "t0000" && e.session === "c")).toMatchObject({ coder: "human:alice" });
  });

  it("the prompt shows each example verbatim with its codes by id and label, ahead of the session", () => {
    const shown = picker(2).pick(b, [0]);
    const [, user] = buildMessages("system", b, [0], { before: 0, after: 0 }, shown);
    expect(user.content.startsWith(renderExamples(shown))).toBe(true);
    expect(user.content).toContain(`example 1 [${shown[0].session} ${shown[0].turn}] ${shown[0].speaker}: ${shown[0].text}`);
    expect(user.content).toMatch(/ {2}codes: [a-z-]+ \([^)]+\)/);
    expect(user.content).toContain("TARGET [t0000] Ava: What about the budget?");
  });

  it("scales are shown as ratings with their anchors", async () => {
    const ttct = await loadCodebook("ttct-creativity", ".");
    const scale = ttct.kind === "scales" ? ttct.scales[0] : undefined;
    const record = { ...rec("a", "t0001", []), codes: undefined, codebook: ttct.id, scores: { [scale!.id]: 2 } };
    const shown = createExamplePicker({ codebook: ttct, sessions: [a, b], records: [{ coder: "human:alice", records: [record] }], shots: 1 }).pick(b, [1]);
    expect(renderExamples(shown)).toContain(`ratings: ${scale!.id} (${scale!.label}) = 2: ${scale!.anchors[1]}`);
  });
});

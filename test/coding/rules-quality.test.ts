import { describe, expect, it } from "vitest";
import { loadCodebook } from "../../src/coding/codebook/load.js";
import { codeTurnWithRules } from "../../src/coding/rules/index.js";
import { goldSessions, kappa, readGold, type GoldTurn } from "./rules-gold.js";

/**
 * Agreement of the Bales rule coder with the hand-coded evaluation set. The floors are the
 * levels reached when the rules were frozen (held-out: never tuned on); a change that lowers
 * them is a regression. Figures at RULES_CODER_VERSION 1.0.0 are in the comments.
 */
async function agreement(split: GoldTurn["split"]) {
  const bales = await loadCodebook("bales-ipa");
  const gold: string[] = [];
  const coded: string[] = [];
  for (const { session, gold: rows } of goldSessions(readGold())) {
    rows.forEach((row, i) => {
      if (row.split !== split) return;
      gold.push(row.code);
      coded.push(codeTurnWithRules(bales, session, i).codes![0]!);
    });
  }
  return { n: gold.length, kappa: kappa(gold, coded), accuracy: gold.filter((g, i) => g === coded[i]).length / gold.length };
}

describe("Bales rule coder against the hand-coded set", () => {
  it("is deterministic over the whole set (two passes, in different orders, agree exactly)", async () => {
    const bales = await loadCodebook("bales-ipa");
    const sessions = goldSessions(readGold());
    const pass = (order: number[]) =>
      order.flatMap((k) => sessions[k]!.session.turns.map((_, i) => `${k}/${i}:${codeTurnWithRules(bales, sessions[k]!.session, i).codes![0]}`));
    const forward = pass(sessions.map((_, k) => k)).sort();
    const backward = pass(sessions.map((_, k) => sessions.length - 1 - k)).sort();
    expect(backward).toEqual(forward);
  });

  it("kappa matches a hand-computed reference", () => {
    // a/b agree on 6 of 8; chance agreement (3*2 + 3*3 + 2*3) / 64 = 21/64, so kappa = 27/43.
    expect(kappa(["x", "y", "y", "z", "x", "x", "z", "y"], ["x", "y", "z", "z", "x", "y", "z", "y"])).toBeCloseTo(27 / 43, 12);
  });

  it("the gold set has >= 300 turns, every code valid, a held-out third", async () => {
    const bales = await loadCodebook("bales-ipa");
    if (bales.kind !== "nominal") throw new Error("bales-ipa must be nominal");
    const ids = new Set(bales.categories.map((c) => c.id));
    const rows = readGold();
    expect(rows.length).toBeGreaterThanOrEqual(300);
    for (const r of rows) expect(ids.has(r.code), `${r.conversation}#${r.turn}: ${r.code}`).toBe(true);
    const heldout = rows.filter((r) => r.split === "heldout").length;
    expect(heldout / rows.length).toBeGreaterThanOrEqual(1 / 3);
  });

  it("held-out kappa stays at the level reached (0.774, accuracy 0.801, n = 236)", async () => {
    const result = await agreement("heldout");
    expect(result.n).toBe(236);
    expect(result.kappa).toBeGreaterThanOrEqual(0.77);
    expect(result.accuracy).toBeGreaterThanOrEqual(0.8);
  });

  it("tuning-set kappa stays at the level reached (0.904, accuracy 0.916, n = 451)", async () => {
    const result = await agreement("tune");
    expect(result.n).toBe(451);
    expect(result.kappa).toBeGreaterThanOrEqual(0.9);
  });
});

import { describe, expect, it } from "vitest";
import { runSimulation, type SimulationPlan } from "../../bench/support/al-simulation.js";

// A pool of 60 numbered turns in a seed's order; "uncertain" picks take the largest numbers not yet
// coded (anything but the order), so the two strategies' sets can be told apart.
const order = Array.from({ length: 60 }, (_, i) => (i * 37) % 60);
const largest = (coded: ReadonlySet<number>, n: number) =>
  order
    .filter((u) => !coded.has(u))
    .sort((a, b) => b - a)
    .slice(0, n);

/** Every set scored, by the number of turns in it. */
function scoredSets(plan: Omit<SimulationPlan<number>, "score" | "order">): Map<number, number[]> {
  const sets = new Map<number, number[]>();
  runSimulation({ ...plan, order, score: (coded) => (sets.set(coded.length, [...coded]), coded.length) });
  return sets;
}

describe("runSimulation: the schedule bench/learned-quality.ts compares strategies on", () => {
  it("scores a model trained on exactly each checkpoint's number of turns, whatever the round size", () => {
    for (const batch of [1, 3, 7, 10, 20, 25])
      for (const seedSet of [5, 10, 20]) {
        const scores = runSimulation({ order, checkpoints: [50, 20, 35], seedSet, batch, pick: largest, score: (coded) => coded.length });
        // A round of 20 after a seed set of 10 would step from 30 to 50 over 35: it is cut at 35.
        expect([...scores]).toEqual([
          [20, 20],
          [35, 35],
          [50, 50],
        ]);
      }
  });

  it("random sampling takes the seed's order: its set at each checkpoint is the order's first turns", () => {
    const sets = scoredSets({ checkpoints: [20, 40], seedSet: 10, batch: 10 });
    expect(sets.get(20)).toEqual(order.slice(0, 20));
    expect(sets.get(40)).toEqual(order.slice(0, 40));
  });

  it("an uncertain strategy starts from the same seed set as random sampling, then takes its own picks", () => {
    const sets = scoredSets({ checkpoints: [30], seedSet: 10, batch: 10, pick: largest });
    const seed = order.slice(0, 10);
    expect(sets.get(30)!.slice(0, 10)).toEqual(seed);
    // 20 picks of the largest numbers left after the seed set, not the order's next 20.
    const rest = order.filter((u) => !seed.includes(u)).sort((a, b) => b - a);
    expect(new Set(sets.get(30)!.slice(10))).toEqual(new Set(rest.slice(0, 20)));
  });

  it("makes up at random what the picks could not give, and refuses a seed set past the first checkpoint", () => {
    const sets = scoredSets({ checkpoints: [30], seedSet: 10, batch: 10, pick: () => [] });
    expect(sets.get(30)).toEqual(order.slice(0, 30));
    expect(() => runSimulation({ order, checkpoints: [10], seedSet: 20, batch: 10, score: () => 0 })).toThrow(/seed set/);
    expect(() => runSimulation({ order, checkpoints: [61], seedSet: 20, batch: 10, score: () => 0 })).toThrow(/larger than the pool/);
  });
});

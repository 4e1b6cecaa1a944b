/**
 * The schedule of one simulated active-learning run (bench/learned-quality.ts --active-learning
 * and --tune): which turns are hand-coded round by round, and the score at each checkpoint. Kept
 * apart from the model so a test (test/bench/al-simulation.test.ts) can check what the comparison
 * of strategies rests on:
 *  - every strategy of a seed starts from the same turns (the first `seedSet` of the seed's order);
 *  - random sampling takes the seed's order, so its set at 150 holds its set at 100;
 *  - a round never steps over a checkpoint, so "at 100" is a model trained on exactly 100 turns,
 *    whatever the round size;
 *  - every strategy is scored by the same `score` (the same model, the same model selection).
 */

export interface SimulationPlan<U> {
  /** The pool in the seed's random order: the seed set is its first `seedSet`; random sampling takes it in this order. */
  order: readonly U[];
  /** Numbers of hand-coded turns at which the model is scored (each >= seedSet). */
  checkpoints: readonly number[];
  /** Turns hand-coded at random before the first model. */
  seedSet: number;
  /** Turns hand-coded per round (between two retrainings). */
  batch: number;
  /** A round's uncertainty picks: up to `n` turns of the pool not in `coded`. Absent: random sampling. */
  pick?: (coded: ReadonlySet<U>, n: number) => readonly U[];
  /** The score of a model trained on `coded` (the same function for every strategy). */
  score: (coded: readonly U[]) => number;
}

/** Score at each checkpoint of one run of `plan`. */
export function runSimulation<U>(plan: SimulationPlan<U>): Map<number, number> {
  const { order, seedSet, batch } = plan;
  const checkpoints = [...plan.checkpoints].sort((a, b) => a - b);
  if (checkpoints[0] < seedSet) throw new Error(`the seed set (${seedSet} turns) is larger than the first checkpoint (${checkpoints[0]})`);
  if (checkpoints.at(-1)! > order.length) throw new Error(`checkpoint ${checkpoints.at(-1)} is larger than the pool (${order.length} turns)`);
  const coded = new Set(order.slice(0, seedSet));
  const takeRandom = (target: number) => {
    for (const u of order) {
      if (coded.size >= target) break;
      coded.add(u);
    }
  };
  const scores = new Map<number, number>();
  for (const checkpoint of checkpoints) {
    while (coded.size < checkpoint) {
      const n = Math.min(batch, checkpoint - coded.size);
      const target = coded.size + n;
      // Picks past what was asked are ignored; too few (candidates ran out) are made up at random.
      if (plan.pick) for (const u of plan.pick(coded, n).slice(0, n)) coded.add(u);
      takeRandom(target);
    }
    scores.set(checkpoint, plan.score([...coded]));
  }
  return scores;
}

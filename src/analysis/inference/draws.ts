import { mulberry32Next, mulberry32Value } from "../../util/random.js";

/**
 * The random draws of the Monte Carlo permutation tests and the bootstrap intervals: which units
 * each resample takes. They depend on the sample sizes, the number of resamples and the seed,
 * never on the values, so every code (or measure) tested over the same units in one comparison
 * draws the same arrangements. Drawing (a mulberry32 step per unit per resample) was most of a
 * test's time; a {@link Draws} made once per comparison draws each arrangement once and hands the
 * same arrays to every test, which then only sums. Each test gives exactly what it gives drawing
 * for itself: the arrays are the stream it would draw, in the order it would draw it.
 */
export interface Draws {
  /**
   * Independent permutations: resample b puts units subsets[b·nx … b·nx + nx) of x ++ y in x, in
   * the order a partial Fisher-Yates shuffle of the running order picks them.
   */
  subsets(nx: number, ny: number, resamples: number, seed: number): Int32Array;
  /** Paired permutations: signs[b·n + i] = 1 when resample b flips pair i's difference. */
  signs(n: number, resamples: number, seed: number): Uint8Array;
  /**
   * Bootstrap resamples: replicate b draws indices[b·(nx + ny) …]: nx indices into x, then ny
   * into y (ny = 0 for a paired effect, whose pairs are drawn together).
   */
  bootstrap(nx: number, ny: number, replicates: number, seed: number): Int32Array;
}

/**
 * Draws kept while the returned object lives (one comparison's codes, one set of measures): the
 * last {@link KEPT} sets made, each up to resamples × units integers (13 MB for 10,000 resamples of
 * 333 sessions), so measures whose units differ cannot pile them up.
 */
export function sharedDraws(): Draws {
  const kept = new Map<string, Int32Array | Uint8Array>();
  const keep = <T extends Int32Array | Uint8Array>(key: string, draw: () => T): T => {
    let value = kept.get(key) as T | undefined;
    if (value) return value;
    kept.set(key, (value = draw()));
    if (kept.size > KEPT) kept.delete(kept.keys().next().value!);
    return value;
  };
  return {
    subsets: (nx, ny, resamples, seed) => keep(`s${nx},${ny},${resamples},${seed}`, () => drawSubsets(nx, ny, resamples, seed)),
    signs: (n, resamples, seed) => keep(`p${n},${resamples},${seed}`, () => drawSigns(n, resamples, seed)),
    bootstrap: (nx, ny, replicates, seed) => keep(`b${nx},${ny},${replicates},${seed}`, () => drawBootstrap(nx, ny, replicates, seed)),
  };
}

/** Sets of draws a {@link sharedDraws} keeps: a comparison's permutations and bootstrap, for a few comparisons at a time. */
const KEPT = 8;

/** Draws made for one test alone (what a test uses when its caller shares none). */
export const ownDraws: Draws = { subsets: drawSubsets, signs: drawSigns, bootstrap: drawBootstrap };

function drawSubsets(nx: number, ny: number, resamples: number, seed: number): Int32Array {
  const n = nx + ny;
  const order = Int32Array.from({ length: n }, (_, i) => i);
  const out = new Int32Array(resamples * nx);
  let state = seed | 0;
  let k = 0;
  for (let b = 0; b < resamples; b++) {
    // A partial Fisher-Yates shuffle: the first nx places are a uniform random subset.
    for (let i = 0; i < nx; i++) {
      state = mulberry32Next(state);
      const j = i + Math.floor(mulberry32Value(state) * (n - i));
      const t = order[i];
      order[i] = order[j];
      order[j] = t;
      out[k++] = order[i];
    }
  }
  return out;
}

function drawSigns(n: number, resamples: number, seed: number): Uint8Array {
  const out = new Uint8Array(resamples * n);
  let state = seed | 0;
  for (let k = 0; k < out.length; k++) {
    state = mulberry32Next(state);
    out[k] = mulberry32Value(state) < 0.5 ? 1 : 0;
  }
  return out;
}

function drawBootstrap(nx: number, ny: number, replicates: number, seed: number): Int32Array {
  const out = new Int32Array(replicates * (nx + ny));
  let state = seed | 0;
  let k = 0;
  for (let b = 0; b < replicates; b++) {
    for (let i = 0; i < nx; i++) {
      state = mulberry32Next(state);
      out[k++] = Math.floor(mulberry32Value(state) * nx);
    }
    for (let i = 0; i < ny; i++) {
      state = mulberry32Next(state);
      out[k++] = Math.floor(mulberry32Value(state) * ny);
    }
  }
  return out;
}

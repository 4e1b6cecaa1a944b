import { logGamma } from "../inference/distributions.js";

/**
 * Exact binomial and multinomial sampling, so a bootstrap replicate over P rating patterns
 * costs O(Σ sd) draws instead of one draw per unit (1,000,000 turns × 1000 replicates would
 * otherwise be 10⁹ draws).
 */

/**
 * One Binomial(n, p) variate by inversion, searching outward from the mode in order of
 * decreasing probability (pmf ratios, so O(sd) steps). Exact up to floating-point rounding of
 * the pmf; small n uses n Bernoulli trials.
 */
export function binomial(n: number, p: number, random: () => number): number {
  if (n <= 0 || p <= 0) return 0;
  if (p >= 1) return n;
  if (n < 32) {
    let x = 0;
    for (let i = 0; i < n; i++) if (random() < p) x++;
    return x;
  }
  const q = 1 - p;
  const mode = Math.min(n, Math.floor((n + 1) * p));
  const pMode = Math.exp(logGamma(n + 1) - logGamma(mode + 1) - logGamma(n - mode + 1) + mode * Math.log(p) + (n - mode) * Math.log1p(-p));
  let u = random() - pMode;
  if (u <= 0) return mode;
  let lo = mode;
  let hi = mode;
  let pLo = pMode;
  let pHi = pMode;
  for (;;) {
    const nextHi = hi < n ? (pHi * (n - hi) * p) / ((hi + 1) * q) : 0;
    const nextLo = lo > 0 ? (pLo * lo * q) / ((n - lo + 1) * p) : 0;
    // Rounding can leave u > 0 after all mass is spent; then the mode is the right answer.
    if (nextHi === 0 && nextLo === 0) return mode;
    if (nextHi >= nextLo) {
      hi++;
      pHi = nextHi;
      u -= pHi;
      if (u <= 0) return hi;
    } else {
      lo--;
      pLo = nextLo;
      u -= pLo;
      if (u <= 0) return lo;
    }
  }
}

/**
 * Fill `out` with a Multinomial(n, weights / Σweights) draw by the chain of conditional
 * binomials: X_i ~ Binomial(n - Σ_{j<i} X_j, w_i / Σ_{j>=i} w_j).
 */
export function multinomial(n: number, weights: ArrayLike<number>, random: () => number, out: Float64Array): void {
  let remainingMass = 0;
  for (let i = 0; i < weights.length; i++) remainingMass += weights[i];
  let remaining = n;
  for (let i = 0; i < weights.length; i++) {
    if (remaining === 0 || weights[i] === 0) {
      out[i] = 0;
      remainingMass -= weights[i];
      continue;
    }
    const x = i === weights.length - 1 || weights[i] >= remainingMass ? remaining : binomial(remaining, weights[i] / remainingMass, random);
    out[i] = x;
    remaining -= x;
    remainingMass -= weights[i];
  }
}

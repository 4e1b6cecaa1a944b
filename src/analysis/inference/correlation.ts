import { normalTwoSided, tTwoSided } from "./distributions.js";
import { assertPaired, rankAverage } from "./ranks.js";

/** Result of {@link kendallTau}. */
export interface KendallResult {
  /** Kendall's tau-b. NaN when either variable is constant (as scipy). */
  tau: number;
  /** Two-sided p-value. */
  p: number;
  n: number;
  /** scipy method="auto": "exact" without ties when n <= 33 (or when at most one pair is discordant/concordant), else "approx". */
  method: "exact" | "approx";
}

/** Dense ranks 1..k of the values. */
function denseRanks(values: readonly number[]): number[] {
  const sorted = [...new Set(values)].sort((a, b) => a - b);
  const index = new Map(sorted.map((v, i) => [v, i + 1]));
  return values.map((v) => index.get(v)!);
}

/** Tie statistics used by the tau-b variance: Σt(t-1)/2, Σt(t-1)(t-2), Σt(t-1)(2t+5). */
function tieStats(ranks: readonly number[]): [number, number, number] {
  const counts = new Map<number, number>();
  for (const r of ranks) counts.set(r, (counts.get(r) ?? 0) + 1);
  let a = 0;
  let b = 0;
  let c = 0;
  for (const t of counts.values()) {
    if (t < 2) continue;
    a += (t * (t - 1)) / 2;
    b += t * (t - 1) * (t - 2);
    c += t * (t - 1) * (2 * t + 5);
  }
  return [a, b, c];
}

/** P(C <= c) for the number of concordant pairs C among n untied items (Mahonian numbers, normalised per step). */
function kendallExactP(n: number, concordant: number): number {
  const tot = (n * (n - 1)) / 2;
  const c = Math.min(concordant, tot - concordant);
  if (n <= 2) return 1;
  if (4 * c === n * (n - 1)) return 1;
  // new[k] / n! = P(inversions == k); build by the recurrence of scipy's _kendall_p_exact (divided by j for range).
  let dist = new Array<number>(c + 1).fill(0);
  dist[0] = 1;
  if (c >= 1) dist[1] = 1;
  let scale = 2; // dist currently holds counts for j = 2, divided by scale = 2!
  dist = dist.map((v) => v / scale);
  for (let j = 3; j <= n; j++) {
    const next = new Array<number>(c + 1);
    let running = 0;
    for (let k = 0; k <= c; k++) {
      running += dist[k];
      next[k] = running;
    }
    if (j <= c) for (let k = c; k >= j; k--) next[k] -= next[k - j];
    scale = j;
    dist = next.map((v) => v / scale);
  }
  let sum = 0;
  for (const v of dist) sum += v;
  return Math.min(1, 2 * sum);
}

/**
 * Concordant and discordant pairs. With few distinct values (rating scales) a kx×ky table and
 * its cumulative sums give them in O(n + kx·ky); otherwise all pairs are compared, O(n²).
 */
function pairCounts(rx: readonly number[], ry: readonly number[]): { concordant: number; discordant: number } {
  const n = rx.length;
  let kx = 0;
  let ky = 0;
  for (let i = 0; i < n; i++) {
    if (rx[i] > kx) kx = rx[i];
    if (ry[i] > ky) ky = ry[i];
  }
  let concordant = 0;
  let discordant = 0;
  if (kx * ky <= 4_000_000 && kx * ky < n * n) {
    // t[i][j]: pairs with dense ranks (i+1, j+1); above[i][j]: Σ t over rows > i, columns > j;
    // belowLeft: Σ t over rows > i, columns < j. Counting each pair once from its lower-x member.
    const t = new Float64Array(kx * ky);
    for (let i = 0; i < n; i++) t[(rx[i] - 1) * ky + (ry[i] - 1)]++;
    const greater = new Float64Array((kx + 1) * (ky + 1)); // Σ t[i'][j'] for i' >= i, j' >= j
    const lesser = new Float64Array((kx + 1) * (ky + 1)); // Σ t[i'][j'] for i' >= i, j' < j  (index j means j' <= j-1)
    for (let i = kx - 1; i >= 0; i--) {
      for (let j = ky - 1; j >= 0; j--) {
        greater[i * (ky + 1) + j] = t[i * ky + j] + greater[(i + 1) * (ky + 1) + j] + greater[i * (ky + 1) + j + 1] - greater[(i + 1) * (ky + 1) + j + 1];
      }
      for (let j = 1; j <= ky; j++) {
        lesser[i * (ky + 1) + j] = t[i * ky + j - 1] + lesser[(i + 1) * (ky + 1) + j] + lesser[i * (ky + 1) + j - 1] - lesser[(i + 1) * (ky + 1) + j - 1];
      }
    }
    for (let i = 0; i < kx; i++) {
      for (let j = 0; j < ky; j++) {
        const c = t[i * ky + j];
        if (c === 0) continue;
        concordant += c * greater[(i + 1) * (ky + 1) + j + 1];
        discordant += c * lesser[(i + 1) * (ky + 1) + j];
      }
    }
    return { concordant, discordant };
  }
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const s = Math.sign(rx[i] - rx[j]) * Math.sign(ry[i] - ry[j]);
      if (s > 0) concordant++;
      else if (s < 0) discordant++;
    }
  }
  return { concordant, discordant };
}

/**
 * Kendall's tau-b with its two-sided p-value, as scipy.stats.kendalltau(x, y) with defaults.
 * Fast on rating scales (few distinct values); O(n²) for continuous data.
 */
export function kendallTau(x: readonly number[], y: readonly number[]): KendallResult {
  const test = "kendallTau";
  assertPaired(x, y, test);
  const n = x.length;
  const rx = denseRanks(x);
  const ry = denseRanks(y);
  const { concordant, discordant } = pairCounts(rx, ry);
  const tot = (n * (n - 1)) / 2;
  const [xtie, x0, x1] = tieStats(rx);
  const [ytie, y0, y1] = tieStats(ry);
  if (n < 2 || xtie === tot || ytie === tot) return { tau: NaN, p: NaN, n, method: "approx" };
  const conMinusDis = concordant - discordant;
  const tau = Math.max(-1, Math.min(1, conMinusDis / Math.sqrt(tot - xtie) / Math.sqrt(tot - ytie)));
  const noTies = xtie === 0 && ytie === 0;
  if (noTies && (n <= 33 || Math.min(discordant, tot - discordant) <= 1)) {
    return { tau, p: kendallExactP(n, tot - discordant), n, method: "exact" };
  }
  const m = n * (n - 1);
  const variance = (m * (2 * n + 5) - x1 - y1) / 18 + (2 * xtie * ytie) / m + (x0 * y0) / (9 * m * (n - 2));
  return { tau, p: normalTwoSided(conMinusDis / Math.sqrt(variance)), n, method: "approx" };
}

/** Result of {@link spearman}. */
export interface SpearmanResult {
  rho: number;
  /** Two-sided p-value from Student t with n - 2 df (scipy.stats.spearmanr). */
  p: number;
  n: number;
}

/** Pearson correlation of two equal-length arrays. */
export function pearsonR(x: readonly number[], y: readonly number[]): number {
  const n = x.length;
  let mx = 0;
  let my = 0;
  for (let i = 0; i < n; i++) {
    mx += x[i];
    my += y[i];
  }
  mx /= n;
  my /= n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) ** 2;
    syy += (y[i] - my) ** 2;
  }
  return Math.max(-1, Math.min(1, sxy / Math.sqrt(sxx * syy)));
}

/** Spearman's rank correlation (Pearson on average ranks) and its p-value, as scipy.stats.spearmanr(x, y). */
export function spearman(x: readonly number[], y: readonly number[]): SpearmanResult {
  const test = "spearman";
  assertPaired(x, y, test);
  const n = x.length;
  if (n < 3) throw new Error(`${test}: needs at least 3 pairs (got ${n})`);
  const rho = pearsonR(rankAverage(x).ranks, rankAverage(y).ranks);
  if (Number.isNaN(rho)) return { rho: NaN, p: NaN, n };
  const df = n - 2;
  const t = rho * Math.sqrt(df / ((1 - rho) * (1 + rho)));
  return { rho, p: Math.abs(rho) === 1 ? 0 : tTwoSided(t, df), n };
}

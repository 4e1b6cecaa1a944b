/**
 * Limited-memory BFGS (Nocedal & Wright, Numerical Optimization, 2nd ed., algorithm 7.4 and 7.5)
 * with a backtracking Armijo line search. Deterministic: no randomness anywhere, so the same
 * objective from the same start gives the same bits. It stops when the largest gradient entry is
 * under `gradientTolerance` (scipy's `pgtol`, which scikit-learn's lbfgs solver sets to its `tol`)
 * or when an iteration lowers the objective by less than `valueTolerance` relative to its size
 * (scipy's `ftol`), and says whether it converged or ran out of iterations.
 */

/** f(x), with its gradient written into `gradient`. */
export type Objective = (x: Float64Array, gradient: Float64Array) => number;

export interface LbfgsOptions {
  /** Pairs (s, y) kept: memory is 2 x history vectors of x's size. */
  history: number;
  maxIterations: number;
  gradientTolerance: number;
  valueTolerance: number;
}

export const DEFAULT_LBFGS: LbfgsOptions = { history: 5, maxIterations: 300, gradientTolerance: 1e-4, valueTolerance: 1e-8 };

export interface LbfgsResult {
  value: number;
  iterations: number;
  /** False when it stopped at maxIterations (or the line search found no lower point) before a tolerance was met. */
  converged: boolean;
}

const dot = (a: Float64Array, b: Float64Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};

const maxAbs = (a: Float64Array) => {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]));
  return m;
};

/** Minimise `objective` from `x` (updated in place). */
export function minimise(objective: Objective, x: Float64Array, options: Partial<LbfgsOptions> = {}): LbfgsResult {
  const o = { ...DEFAULT_LBFGS, ...options };
  const n = x.length;
  let gradient = new Float64Array(n);
  let value = objective(x, gradient);
  const s: Float64Array[] = [];
  const y: Float64Array[] = [];
  const rho: number[] = [];
  const alpha = new Float64Array(o.history);
  const direction = new Float64Array(n);
  const next = new Float64Array(n);
  let nextGradient = new Float64Array(n);
  for (let iteration = 0; iteration < o.maxIterations; iteration++) {
    if (maxAbs(gradient) <= o.gradientTolerance) return { value, iterations: iteration, converged: true };
    // Two-loop recursion: direction = -H·gradient, H the inverse Hessian the history implies.
    for (let i = 0; i < n; i++) direction[i] = -gradient[i];
    for (let k = s.length - 1; k >= 0; k--) {
      alpha[k] = rho[k] * dot(s[k], direction);
      const yk = y[k];
      for (let i = 0; i < n; i++) direction[i] -= alpha[k] * yk[i];
    }
    const last = s.length - 1;
    // The usual initial scaling (eq. 7.20); before any history, a first step of unit length.
    const gamma = last >= 0 ? 1 / (rho[last] * dot(y[last], y[last])) : 1 / Math.max(1, Math.sqrt(dot(gradient, gradient)));
    for (let i = 0; i < n; i++) direction[i] *= gamma;
    for (let k = 0; k < s.length; k++) {
      const beta = rho[k] * dot(y[k], direction);
      const sk = s[k];
      for (let i = 0; i < n; i++) direction[i] += sk[i] * (alpha[k] - beta);
    }
    let slope = dot(gradient, direction);
    if (!(slope < 0)) {
      // Not a descent direction (round-off): forget the history and go down the gradient.
      s.length = y.length = rho.length = 0;
      for (let i = 0; i < n; i++) direction[i] = -gradient[i];
      slope = -dot(gradient, gradient);
    }
    let step = 1;
    let nextValue = Infinity;
    for (let tries = 0; tries < 40; tries++) {
      for (let i = 0; i < n; i++) next[i] = x[i] + step * direction[i];
      nextValue = objective(next, nextGradient);
      if (nextValue <= value + 1e-4 * step * slope) break;
      step /= 2;
    }
    if (!(nextValue < value)) return { value, iterations: iteration, converged: maxAbs(gradient) <= o.gradientTolerance };
    const sk = s.length === o.history ? s.shift()! : new Float64Array(n);
    const yk = y.length === o.history ? y.shift()! : new Float64Array(n);
    if (rho.length === o.history) rho.shift();
    for (let i = 0; i < n; i++) {
      sk[i] = next[i] - x[i];
      yk[i] = nextGradient[i] - gradient[i];
    }
    const sy = dot(sk, yk);
    // Keep the pair only when the curvature condition holds, so H stays positive definite.
    if (sy > 1e-12) {
      s.push(sk);
      y.push(yk);
      rho.push(1 / sy);
    }
    const decrease = (value - nextValue) / Math.max(Math.abs(value), Math.abs(nextValue), 1);
    x.set(next);
    [gradient, nextGradient] = [nextGradient, gradient];
    value = nextValue;
    if (decrease <= o.valueTolerance) return { value, iterations: iteration + 1, converged: true };
  }
  return { value, iterations: o.maxIterations, converged: maxAbs(gradient) <= o.gradientTolerance };
}

#!/usr/bin/env python3
"""Reference vectors for Colloquy's inference modules (src/analysis/inference: permutation.ts,
effect-sizes.ts, multiplicity.ts, power.ts, two-groups.ts), computed with SciPy.

Run:  python3 scripts/reference/make_inference_vectors.py > test/analysis/inference/inference-vectors.json
Checked by test/analysis/inference/inference-vectors.test.ts to 1e-6.

Sources of each expected value:
  - permutation tests: scipy.stats.permutation_test (exact: n_resamples >= arrangements);
    Monte Carlo cases give SciPy's p with 200,000 resamples, which the test compares within
    Monte Carlo error (our seeded stream is not NumPy's);
  - Mann-Whitney / Cliff's delta: scipy.stats.mannwhitneyu(method="exact"), delta = 2U/(nx*ny) - 1;
  - Wilcoxon with zero differences: scipy.stats.wilcoxon (p, zero_method "wilcox") and the
    matched-pairs rank-biserial from R+ = wilcoxon(zero_method="zsplit", alternative="greater").statistic;
  - Hedges' g and g_z: their textbook definitions (Lakens 2013, eqs. 1-7) in NumPy;
  - Holm and Benjamini-Hochberg: textbook definitions written here (statsmodels is not installed),
    BH cross-checked with scipy.stats.false_discovery_control;
  - minimum detectable effect: the t approximation with scipy.stats.t.ppf, and for comparison the
    exact noncentral-t solution (scipy.stats.nct, brentq), which is not what the code computes.
"""
import json
import math

import numpy as np
from scipy import optimize, stats

rng = np.random.default_rng(34)


def fl(a):
    return [float(v) for v in a]


def mean_diff(x, y, axis=-1):
    return np.mean(x, axis=axis) - np.mean(y, axis=axis)


def mean_paired(x, y, axis=-1):
    return np.mean(x - y, axis=axis)


out = {"scipy": __import__("scipy").__version__, "permutation": [], "paired_permutation": [], "mann_whitney": [], "wilcoxon": [],
       "hedges": [], "multiplicity": [], "mde": []}

# Independent permutation tests, exact (C(n, nx) <= 10,000 arrangements).
independent = [
    ("3 vs 3 sessions, distinct", [5, 9, 7], [1, 2, 4]),
    ("3 vs 3 with ties", [2, 2, 3], [2, 1, 1]),
    ("4 vs 4 counts", [12, 15, 9, 20], [7, 6, 11, 5]),
    ("5 vs 6 proportions", [0.12, 0.3, 0.25, 0.18, 0.22], [0.1, 0.05, 0.2, 0.15, 0.08, 0.11]),
    ("2 vs 7", [3.5, 4.0], [1.0, 2.0, 2.5, 3.0, 1.5, 2.2, 0.4]),
    ("6 vs 6 zeros", [0, 0, 1, 0, 2, 0], [0, 0, 0, 0, 0, 1]),
    ("7 vs 7 normal", fl(np.round(rng.normal(10, 2, 7), 2)), fl(np.round(rng.normal(12, 2, 7), 2))),
]
for name, x, y in independent:
    n = len(x) + len(y)
    r = stats.permutation_test((np.array(x, float), np.array(y, float)), mean_diff, permutation_type="independent",
                               alternative="two-sided", n_resamples=10_000, vectorized=True)
    out["permutation"].append(dict(name=name, x=x, y=y, statistic=float(r.statistic), p=float(r.pvalue), exact=True,
                                   arrangements=math.comb(n, len(x)),
                                   py="stats.permutation_test((x, y), mean(x) - mean(y), permutation_type='independent', n_resamples=10000)"))
# Monte Carlo: more arrangements than resamples.
for name, x, y in [("20 vs 25 normal (Monte Carlo)", fl(np.round(rng.normal(0, 1, 20), 3)), fl(np.round(rng.normal(0.5, 1, 25), 3))),
                   ("15 vs 15 counts (Monte Carlo)", fl(rng.poisson(4, 15)), fl(rng.poisson(5, 15)))]:
    r = stats.permutation_test((np.array(x, float), np.array(y, float)), mean_diff, permutation_type="independent",
                               n_resamples=200_000, vectorized=True, rng=np.random.default_rng(1))
    out["permutation"].append(dict(name=name, x=x, y=y, statistic=float(r.statistic), p=float(r.pvalue), exact=False,
                                   referenceResamples=200_000,
                                   py="stats.permutation_test((x, y), mean(x) - mean(y), n_resamples=200000)"))

paired = [
    ("3 pairs", [5, 7, 6], [3, 4, 6.5]),
    ("6 pairs with a zero", [10, 12, 9, 14, 11, 13], [8, 12, 7, 10, 12, 9]),
    ("9 pairs (scipy wilcoxon docs data)", [1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30],
     [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29]),
    ("12 pairs counts", fl(rng.poisson(6, 12)), fl(rng.poisson(5, 12))),
]
for name, x, y in paired:
    r = stats.permutation_test((np.array(x, float), np.array(y, float)), mean_paired, permutation_type="samples",
                               n_resamples=10_000, vectorized=True)
    out["paired_permutation"].append(dict(name=name, x=x, y=y, statistic=float(r.statistic), p=float(r.pvalue), exact=True,
                                          arrangements=2 ** len(x),
                                          py="stats.permutation_test((x, y), mean(x - y), permutation_type='samples', n_resamples=10000)"))
x30 = fl(np.round(rng.normal(1, 1, 30), 3))
y30 = fl(np.round(rng.normal(0.6, 1, 30), 3))
r = stats.permutation_test((np.array(x30), np.array(y30)), mean_paired, permutation_type="samples", n_resamples=200_000,
                           vectorized=True, rng=np.random.default_rng(1))
out["paired_permutation"].append(dict(name="30 pairs (Monte Carlo)", x=x30, y=y30, statistic=float(r.statistic), p=float(r.pvalue),
                                      exact=False, referenceResamples=200_000,
                                      py="stats.permutation_test((x, y), mean(x - y), permutation_type='samples', n_resamples=200000)"))

for name, x, y in [("3 vs 3", [5, 9, 7], [1, 2, 4]), ("4 vs 6", [3.1, 4.2, 5.0, 2.2], [1.0, 2.5, 0.3, 1.9, 2.8, 0.7]),
                   ("8 vs 8", [0.21, -1.3, 0.77, 1.05, -0.42, 0.03, 1.6, -0.95], [1.12, 0.48, 2.3, 1.41, 0.9, 1.95, -0.2, 2.71])]:
    r = stats.mannwhitneyu(x, y, method="exact")
    out["mann_whitney"].append(dict(name=name, x=x, y=y, U=float(r.statistic), p=float(r.pvalue),
                                    cliffsDelta=float(2 * r.statistic / (len(x) * len(y)) - 1),
                                    py="stats.mannwhitneyu(x, y, method='exact'); delta = 2U/(nx ny) - 1"))
# Cliff's delta with ties, from U (scipy counts ties one half).
xt, yt = [1, 2, 2, 3, 5], [2, 2, 1, 0, 4, 2]
r = stats.mannwhitneyu(xt, yt)
out["mann_whitney"].append(dict(name="5 vs 6 with ties (delta only)", x=xt, y=yt, U=float(r.statistic), p=None,
                                cliffsDelta=float(2 * r.statistic / (len(xt) * len(yt)) - 1), py="stats.mannwhitneyu(x, y).statistic"))


def rank_biserial_zsplit(x, y):
    n = len(x)
    rplus = stats.wilcoxon(x, y, zero_method="zsplit", alternative="greater").statistic
    total = n * (n + 1) / 2
    return float((2 * rplus - total) / total)


zeros20x = [3, 1, 0, 2, 5, 0, 0, 1, 0, 0, 4, 0, 0, 0, 2, 0, 0, 0, 1, 0]
zeros20y = [0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0]
for name, x, y in [("20 pairs, 14 zero differences", zeros20x, zeros20y),
                   ("9 pairs, ties and a zero", [1, 2, 2, 3, -1, 4, 5, 0, 6], [0] * 9),
                   ("9 pairs (scipy docs data)", [1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30],
                    [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29])]:
    r = stats.wilcoxon(x, y)
    out["wilcoxon"].append(dict(name=name, x=fl(x), y=fl(y), W=float(r.statistic), p=float(r.pvalue), rankBiserial=rank_biserial_zsplit(x, y),
                                py="stats.wilcoxon(x, y); r = (2 R+ - T) / T with R+ = stats.wilcoxon(x, y, zero_method='zsplit', alternative='greater').statistic"))


def hedges_g(x, y):
    x, y = np.array(x, float), np.array(y, float)
    nx, ny = len(x), len(y)
    sp = math.sqrt(((nx - 1) * x.var(ddof=1) + (ny - 1) * y.var(ddof=1)) / (nx + ny - 2))
    return float((x.mean() - y.mean()) / sp * (1 - 3 / (4 * (nx + ny) - 9)))


def hedges_gz(x, y):
    d = np.array(x, float) - np.array(y, float)
    n = len(d)
    return float(d.mean() / d.std(ddof=1) * (1 - 3 / (4 * (n - 1) - 1)))


for name, x, y in independent[:5]:
    out["hedges"].append(dict(name=name, x=x, y=y, paired=False, g=hedges_g(x, y), py="textbook: (mean x - mean y)/pooled SD * (1 - 3/(4(nx+ny) - 9))"))
for name, x, y in paired[1:]:
    out["hedges"].append(dict(name=name, x=x, y=y, paired=True, g=hedges_gz(x, y), py="textbook: mean(d)/SD(d) * (1 - 3/(4(n-1) - 1))"))


def holm(p):
    p = np.asarray(p, float)
    m = len(p)
    order = np.argsort(p, kind="stable")
    adj = np.empty(m)
    running = 0.0
    for k, i in enumerate(order):
        running = max(running, min(1.0, (m - k) * p[i]))
        adj[i] = running
    return adj


def bh(p):
    p = np.asarray(p, float)
    m = len(p)
    order = np.argsort(p, kind="stable")
    adj = np.empty(m)
    running = 1.0
    for k in range(m - 1, -1, -1):
        i = order[k]
        running = min(running, m / (k + 1) * p[i])
        adj[i] = running
    return adj


for name, p in [("12 codes", [0.001, 0.2, 0.04, 0.03, 0.5, 0.012, 0.9, 0.049, 0.3, 0.0005, 0.07, 0.02]),
                ("ties", [0.01, 0.01, 0.04, 0.04, 0.2]),
                ("one", [0.03]),
                ("uniform 30", fl(np.round(rng.uniform(0, 1, 30) ** 2, 5)))]:
    b = bh(p)
    assert np.allclose(b, stats.false_discovery_control(p, method="bh"), atol=1e-12), name
    out["multiplicity"].append(dict(name=name, p=p, holm=fl(holm(p)), bh=fl(b),
                                    py="textbook Holm / BH; BH equals stats.false_discovery_control(p, method='bh')"))


def mde_approx(df, se_factor, alpha=0.05, power=0.8):
    return float((stats.t.ppf(1 - alpha / 2, df) + stats.t.ppf(power, df)) * se_factor)


def mde_exact(df, se_factor, alpha=0.05, power=0.8):
    crit = stats.t.ppf(1 - alpha / 2, df)

    def pw(d):
        nc = d / se_factor
        return 1 - stats.nct.cdf(crit, df, nc) + stats.nct.cdf(-crit, df, nc) - power

    return float(optimize.brentq(pw, 0.01, 1.5 * mde_approx(df, se_factor, alpha, power)))


for nA, nB in [(3, 3), (4, 4), (5, 5), (10, 12), (30, 30)]:
    f = math.sqrt(1 / nA + 1 / nB)
    out["mde"].append(dict(name=f"{nA} vs {nB}", nA=nA, nB=nB, mde=mde_approx(nA + nB - 2, f), exactNct=mde_exact(nA + nB - 2, f),
                           py="(t.ppf(.975, df) + t.ppf(.8, df)) * sqrt(1/nA + 1/nB)"))
for n in [3, 5, 9, 20]:
    f = 1 / math.sqrt(n)
    out["mde"].append(dict(name=f"{n} pairs", pairs=n, mde=mde_approx(n - 1, f), exactNct=mde_exact(n - 1, f),
                           py="(t.ppf(.975, n-1) + t.ppf(.8, n-1)) / sqrt(n)"))

print(json.dumps(out, indent=1))

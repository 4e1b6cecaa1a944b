# Generates test/analysis/inference/reference.test.ts: each case's Python line is written above it.
import json, numpy as np
from scipy import stats, special
rng = np.random.default_rng(7)
def arr(a): return [float(v) for v in a]
cases = []
def case(name, fn, args, code):
    res = eval(code, {"stats": stats, "special": special, "np": np, **args})
    cases.append((name, fn, args, code, res))

x9 = [1.83,0.50,1.62,2.48,1.68,1.88,1.55,3.06,1.30]; y9 = [0.878,0.647,0.598,2.05,1.06,1.29,1.06,3.14,1.29]
x20 = arr(np.round(rng.normal(10, 3, 20), 3)); y20 = arr(np.round(rng.normal(11, 3, 20), 3))
d_ties = [1, 2, 2, 3, -1, 4, 5, 0, 6]
x60 = arr(np.round(rng.normal(3, 1, 60))); y60 = arr(np.round(rng.normal(3.4, 1, 60)))
x51 = arr(np.round(rng.normal(0, 1, 51), 4)); 
W = []
W.append(("wilcoxon exact n=9 (scipy docs data)", dict(x=x9, y=y9)))
W.append(("wilcoxon exact n=20", dict(x=x20, y=y20)))
W.append(("wilcoxon ties+zero n=9 -> permutation", dict(x=d_ties, y=None)))
W.append(("wilcoxon ties n=60 -> approx", dict(x=x60, y=y60)))
W.append(("wilcoxon n=51 no ties -> approx", dict(x=x51, y=None)))
out = {"wilcoxon": [], "ttest_rel": [], "welch": [], "mwu": [], "kendall": [], "spearman": [], "chi2": [], "dist": []}
for name, a in W:
    x = np.array(a["x"], float); y = None if a["y"] is None else np.array(a["y"], float)
    r = stats.wilcoxon(x) if y is None else stats.wilcoxon(x, y)
    ra = stats.wilcoxon(x, method="asymptotic") if y is None else stats.wilcoxon(x, y, method="asymptotic")
    out["wilcoxon"].append(dict(name=name, x=a["x"], y=a["y"], W=float(r.statistic), p=float(r.pvalue), z=float(ra.zstatistic),
        py="stats.wilcoxon(x%s) ; z from stats.wilcoxon(x%s, method='asymptotic').zstatistic" % (", y" if y is not None else "", ", y" if y is not None else "")))
tt = [("ttest_rel n=9", x9, y9), ("ttest_rel n=20", x20, y20)]
for name, x, y in tt:
    r = stats.ttest_rel(x, y)
    out["ttest_rel"].append(dict(name=name, x=x, y=y, t=float(r.statistic), df=float(r.df), p=float(r.pvalue), py="stats.ttest_rel(x, y)"))
a1 = arr(np.round(rng.normal(5, 1, 12), 3)); b1 = arr(np.round(rng.normal(6, 3, 30), 3))
for name, x, y in [("welch 12 vs 30", a1, b1), ("welch n=9 each", x9, y9)]:
    r = stats.ttest_ind(x, y, equal_var=False)
    out["welch"].append(dict(name=name, x=x, y=y, t=float(r.statistic), df=float(r.df), p=float(r.pvalue), py="stats.ttest_ind(x, y, equal_var=False)"))
m1 = [19.1, 22.3, 17.8, 25.0, 21.6]; m2 = [24.4, 26.1, 23.2, 28.9, 20.5, 27.7, 29.3]
m3 = arr(np.round(rng.normal(3, 1, 25))); m4 = arr(np.round(rng.normal(3.5, 1, 18)))
m5 = arr(np.round(rng.normal(0, 1, 6), 3)); m6 = arr(np.round(rng.normal(0.5, 1, 30), 3))
for name, x, y in [("mwu exact 5 vs 7", m1, m2), ("mwu ties 25 vs 18 -> approx", m3, m4), ("mwu exact 6 vs 30", m5, m6), ("mwu 10 vs 12 no ties -> approx", x20[:10], y20[:12])]:
    r = stats.mannwhitneyu(x, y)
    out["mwu"].append(dict(name=name, x=x, y=y, U=float(r.statistic), p=float(r.pvalue), py="stats.mannwhitneyu(x, y)"))
k1 = arr(np.round(rng.normal(0, 1, 40))); k2 = arr(np.round(np.array(k1) + rng.normal(0, 1, 40)))
for name, x, y in [("kendall exact n=9", x9, y9), ("kendall exact n=20", x20, y20), ("kendall ties n=40 -> approx", k1, k2), ("kendall n=40 no ties -> approx", arr(x51[:40]), arr(np.round(rng.normal(0,1,40),4)))]:
    r = stats.kendalltau(x, y)
    out["kendall"].append(dict(name=name, x=x, y=y, tau=float(r.statistic), p=float(r.pvalue), py="stats.kendalltau(x, y)"))
for name, x, y in [("spearman n=9", x9, y9), ("spearman ties n=40", k1, k2)]:
    r = stats.spearmanr(x, y)
    out["spearman"].append(dict(name=name, x=x, y=y, rho=float(r.statistic), p=float(r.pvalue), py="stats.spearmanr(x, y)"))
for name, t in [("2x2 with Yates", [[12, 5], [7, 14]]), ("2x2 small diff (Yates capped)", [[10, 10], [10, 11]]), ("3x4", [[20, 15, 30, 5], [12, 18, 25, 9], [8, 22, 14, 16]]), ("1x3 dof 0", [[3, 4, 5]])]:
    r = stats.chi2_contingency(t)
    v = float(stats.contingency.association(t, method="cramer")) if len(t) > 1 else None
    out["chi2"].append(dict(name=name, table=t, chi2=float(r.statistic), dof=int(r.dof), p=float(r.pvalue), cramersV=v, expected=r.expected_freq.tolist(),
        py="stats.chi2_contingency(table); V = stats.contingency.association(table, method='cramer')"))
for z in [-8.5, -3.1, -1.0, 0.0, 0.3, 1.959963984540054, 5.0, 12.0]:
    out["dist"].append(dict(kind="normalCdf", args=[z], value=float(special.ndtr(z)), py=f"special.ndtr({z})"))
for t, df in [(2.1, 5), (0.5, 1), (-3.7, 12.4), (10.0, 30), (0.01, 200), (25.0, 3)]:
    out["dist"].append(dict(kind="tTwoSided", args=[t, df], value=float(2 * stats.t.sf(abs(t), df)), py=f"2*stats.t.sf(abs({t}), {df})"))
for x, k in [(3.84, 1), (0.2, 1), (15.0, 4), (120.0, 80), (1e-3, 3), (60.0, 7), (7.0, 9)]:
    out["dist"].append(dict(kind="chiSquareSf", args=[x, k], value=float(stats.chi2.sf(x, k)), py=f"stats.chi2.sf({x}, {k})"))
for x, a, b in [(0.3, 2.5, 4.0), (0.9, 0.5, 12.0), (0.01, 3.0, 0.5), (0.5, 50.0, 60.0)]:
    out["dist"].append(dict(kind="incompleteBeta", args=[x, a, b], value=float(special.betainc(a, b, x)), py=f"special.betainc({a}, {b}, {x})"))
for a, x in [(0.5, 0.1), (3.0, 2.0), (10.0, 15.0), (100.0, 90.0)]:
    out["dist"].append(dict(kind="gammaP", args=[a, x], value=float(special.gammainc(a, x)), py=f"special.gammainc({a}, {x})"))
print(json.dumps(out))

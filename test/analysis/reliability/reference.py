# Reference values for test/analysis/reliability/reference.test.ts.
# Run with Debian's python3 (scikit-learn 1.2.1, numpy): /usr/bin/python3 test/analysis/reliability/reference.py
# Kappa / precision-recall come from scikit-learn; Krippendorff, Fleiss and Gwet from the
# independent pairwise formulations below (not the coincidence-matrix code the TS uses).
import json, itertools
import numpy as np
from sklearn.metrics import cohen_kappa_score, precision_recall_fscore_support

out = {"kappa": [], "prf": [], "alpha": [], "fleiss": [], "gwet": []}
rng = np.random.default_rng(11)

# --- Cohen's kappa (scikit-learn) ---
ka = [
  ("sklearn test: Artstein & Poesio table 1", [0]*40 + [1]*60, [0]*20 + [1]*20 + [0]*10 + [1]*50, None),
  ("sklearn test: Artstein & Poesio table 4", [0]*46 + [1]*44 + [2]*10, [0]*52 + [1]*32 + [2]*16, None),
  ("sklearn test: weighting example", [0]*46 + [1]*44 + [2]*10, [0]*50 + [1]*40 + [2]*10, None),
  ("sklearn test: weighting example linear", [0]*46 + [1]*44 + [2]*10, [0]*50 + [1]*40 + [2]*10, "linear"),
  ("sklearn test: weighting example quadratic", [0]*46 + [1]*44 + [2]*10, [0]*50 + [1]*40 + [2]*10, "quadratic"),
]
s1 = [int(v) for v in rng.integers(1, 6, 80)]
s2 = [int(min(5, max(1, v + rng.integers(-1, 2)))) for v in s1]
for w in (None, "linear", "quadratic"):
  ka.append((f"random 1-5 scale, weights={w}", s1, s2, w))
c1 = [str(v) for v in rng.choice(["ask", "give", "agree", "joke"], 60)]
c2 = [v if rng.random() < 0.7 else str(rng.choice(["ask", "give", "agree", "joke"])) for v in c1]
ka.append(("string categories", c1, c2, None))
for name, a, b, w in ka:
  out["kappa"].append(dict(name=name, a=a, b=b, weights=w, kappa=float(cohen_kappa_score(a, b, weights=w)),
    py=f"cohen_kappa_score(a, b, weights={w!r})"))
out["kappa"].append(dict(name="sklearn test: labels=[0,1] ignores spurious label 2", a=[0]*40 + [1]*60 + [2]*4, b=[0]*20 + [1]*20 + [0]*10 + [1]*50 + [2]*4,
  weights=None, labels=[0, 1], kappa=float(cohen_kappa_score([0]*40 + [1]*60 + [2]*4, [0]*20 + [1]*20 + [0]*10 + [1]*50 + [2]*4, labels=[0, 1])), py="cohen_kappa_score(a, b, labels=[0, 1])"))

p, r, f, s = precision_recall_fscore_support(c1, c2, zero_division=0)
out["prf"].append(dict(name="string categories, reference = a", a=c1, b=c2, labels=sorted(set(c1) | set(c2)), precision=p.tolist(), recall=r.tolist(), f1=f.tolist(), support=s.tolist(),
  py="precision_recall_fscore_support(a, b, zero_division=0)"))

# --- Krippendorff's alpha: pairwise definition (Krippendorff 2011, eqs. for D_o and D_e) ---
def alpha_pairwise(data, level):
  units = [[v for v in col if v is not None] for col in zip(*data)]
  units = [u for u in units if len(u) >= 2]
  allv = [v for u in units for v in u]
  n = len(allv)
  vals = sorted(set(allv))
  ng = {v: allv.count(v) for v in vals}
  def d2(c, k):
    if c == k: return 0.0
    if level == "nominal": return 1.0
    if level == "interval": return float((c - k) ** 2)
    if level == "ratio": return ((c - k) / (c + k)) ** 2
    lo, hi = sorted((vals.index(c), vals.index(k)))
    return (sum(ng[vals[g]] for g in range(lo, hi + 1)) - (ng[c] + ng[k]) / 2) ** 2
  do = sum(d2(a, b) / (len(u) - 1) for u in units for a, b in itertools.permutations(u, 2)) / n
  de = sum(d2(a, b) for a, b in itertools.permutations(allv, 2)) / (n * (n - 1))
  return 1 - do / de, do, de, n

K = None
kripp = [  # Krippendorff (2011) "Computing Krippendorff's Alpha-Reliability", section C (4 observers x 12 units)
  [1, 2, 3, 3, 2, 1, 4, 1, 2, K, K, K],
  [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, K, 3],
  [K, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, K],
  [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, K],
]
base = rng.integers(1, 8, 40)  # a true value per unit; each coder is off by -1/0/+1 and misses 20%
rnd = [[(int(min(7, max(1, v + rng.integers(-1, 2)))) if rng.random() > 0.2 else None) for v in base] for _ in range(3)]
for name, data in [("Krippendorff 2011 4x12 example", kripp), ("random 3 coders x 40 units, 20% missing", rnd)]:
  for level in ("nominal", "ordinal", "interval", "ratio"):
    a, do, de, n = alpha_pairwise(data, level)
    out["alpha"].append(dict(name=f"{name}, {level}", ratings=data, level=level, alpha=a, do=do, de=de, n=n, py=f"alpha_pairwise(ratings, {level!r})"))

# --- Fleiss (1971) / generalised, and Gwet AC1, written from the formulas (Gwet 2014; irrCAC) ---
def parts(data):
  cats = sorted({v for row in data for v in row if v is not None})
  counts = [[sum(1 for row in data if row[u] == c) for c in cats] for u in range(len(data[0]))]
  counts = [c for c in counts if sum(c) > 0]
  pairable = [c for c in counts if sum(c) >= 2]
  pa = sum(sum(x * (x - 1) for x in c) / (sum(c) * (sum(c) - 1)) for c in pairable) / len(pairable)
  pi = [sum(c[k] / sum(c) for c in counts) / len(counts) for k in range(len(cats))]
  return pa, pi, len(cats)
wiki = [[0,0,0,0,14],[0,2,6,4,2],[0,0,3,5,6],[0,3,9,2,0],[2,2,8,1,1],[7,7,0,0,0],[3,2,6,3,0],[2,5,3,2,2],[6,5,2,1,0],[0,2,2,3,7]]
N, n = len(wiki), 14
P = [ (sum(x*x for x in row) - n) / (n*(n-1)) for row in wiki]
pj = [sum(row[j] for row in wiki) / (N*n) for j in range(5)]
pbar, pe = sum(P)/N, sum(p*p for p in pj)
out["fleiss"].append(dict(name="Fleiss 1971 / Wikipedia worked example (10 subjects, 5 categories, 14 raters)", counts=wiki, kappa=(pbar-pe)/(1-pe), pBar=pbar, pE=pe, py="Fleiss (1971) formulas, see reference.py"))
for name, data in [("Krippendorff 2011 4x12 example (varying raters)", kripp), ("random 3 coders x 40 units, 20% missing", rnd)]:
  pa, pi, q = parts(data)
  pe_f = sum(p*p for p in pi)
  pe_g = sum(p*(1-p) for p in pi) / (q - 1)
  out["fleiss"].append(dict(name=name + " (generalised)", ratings=data, kappa=(pa-pe_f)/(1-pe_f), pBar=pa, pE=pe_f, py="generalised Fleiss (Gwet 2014), see reference.py"))
  out["gwet"].append(dict(name=name, ratings=data, ac1=(pa-pe_g)/(1-pe_g), pa=pa, pe=pe_g, py="Gwet AC1 (Gwet 2008/2014), see reference.py"))
print(json.dumps(out))

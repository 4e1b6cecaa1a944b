// Reference values: scikit-learn 1.2.1 (Debian python3-sklearn) for kappa and precision/recall/F1;
// independent pairwise formulas in Python for Krippendorff, Fleiss and Gwet. All produced by
// test/analysis/reliability/reference.py (run: /usr/bin/python3 test/analysis/reliability/reference.py);
// the comment above each case is the Python expression that gave its expected value(s).
import { describe, expect, it } from "vitest";
import {
  cohenKappa,
  fleissKappa,
  fleissKappaFromRatings,
  gwetAC1,
  krippendorffAlpha,
  perCategoryScores,
  type MeasurementLevel,
} from "../../../src/analysis/reliability/index.js";

function close(actual: number, expected: number): void {
  expect(Math.abs(actual - expected), `actual ${actual} expected ${expected}`).toBeLessThanOrEqual(1e-9 + 1e-9 * Math.abs(expected));
}

describe("cohenKappa vs sklearn.metrics.cohen_kappa_score", () => {
  // python: cohen_kappa_score(a, b, weights=None)
  it("sklearn test: Artstein & Poesio table 1", () => {
    const c = {
      name: "sklearn test: Artstein & Poesio table 1",
      a: [
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
        1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
      ],
      b: [
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
        1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
      ],
      weights: null,
      kappa: 0.34782608695652173,
    };
    const r = cohenKappa(c.a, c.b, { weights: (c.weights ?? undefined) as "linear" | "quadratic" | undefined, labels: (c as { labels?: number[] }).labels });
    close(r.kappa, c.kappa);
    close(r.kappa, (r.observed - r.expected) / (1 - r.expected));
    close(
      cohenKappa(c.b, c.a, { weights: (c.weights ?? undefined) as "linear" | "quadratic" | undefined, labels: (c as { labels?: number[] }).labels }).kappa,
      c.kappa,
    );
  });
  // python: cohen_kappa_score(a, b, weights=None)
  it("sklearn test: Artstein & Poesio table 4", () => {
    const c = {
      name: "sklearn test: Artstein & Poesio table 4",
      a: [
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1,
        1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
      ],
      b: [
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
      ],
      weights: null,
      kappa: 0.8013245033112583,
    };
    const r = cohenKappa(c.a, c.b, { weights: (c.weights ?? undefined) as "linear" | "quadratic" | undefined, labels: (c as { labels?: number[] }).labels });
    close(r.kappa, c.kappa);
    close(r.kappa, (r.observed - r.expected) / (1 - r.expected));
    close(
      cohenKappa(c.b, c.a, { weights: (c.weights ?? undefined) as "linear" | "quadratic" | undefined, labels: (c as { labels?: number[] }).labels }).kappa,
      c.kappa,
    );
  });
  // python: cohen_kappa_score(a, b, weights=None)
  it("sklearn test: weighting example", () => {
    const c = {
      name: "sklearn test: weighting example",
      a: [
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1,
        1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
      ],
      b: [
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
        1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
      ],
      weights: null,
      kappa: 0.9315068493150684,
    };
    const r = cohenKappa(c.a, c.b, { weights: (c.weights ?? undefined) as "linear" | "quadratic" | undefined, labels: (c as { labels?: number[] }).labels });
    close(r.kappa, c.kappa);
    close(r.kappa, (r.observed - r.expected) / (1 - r.expected));
    close(
      cohenKappa(c.b, c.a, { weights: (c.weights ?? undefined) as "linear" | "quadratic" | undefined, labels: (c as { labels?: number[] }).labels }).kappa,
      c.kappa,
    );
  });
  // python: cohen_kappa_score(a, b, weights='linear')
  it("sklearn test: weighting example linear", () => {
    const c = {
      name: "sklearn test: weighting example linear",
      a: [
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1,
        1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
      ],
      b: [
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
        1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
      ],
      weights: "linear",
      kappa: 0.9411764705882353,
    };
    const r = cohenKappa(c.a, c.b, { weights: (c.weights ?? undefined) as "linear" | "quadratic" | undefined, labels: (c as { labels?: number[] }).labels });
    close(r.kappa, c.kappa);
    close(r.kappa, (r.observed - r.expected) / (1 - r.expected));
    close(
      cohenKappa(c.b, c.a, { weights: (c.weights ?? undefined) as "linear" | "quadratic" | undefined, labels: (c as { labels?: number[] }).labels }).kappa,
      c.kappa,
    );
  });
  // python: cohen_kappa_score(a, b, weights='quadratic')
  it("sklearn test: weighting example quadratic", () => {
    const c = {
      name: "sklearn test: weighting example quadratic",
      a: [
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1,
        1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
      ],
      b: [
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
        1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
      ],
      weights: "quadratic",
      kappa: 0.9541284403669725,
    };
    const r = cohenKappa(c.a, c.b, { weights: (c.weights ?? undefined) as "linear" | "quadratic" | undefined, labels: (c as { labels?: number[] }).labels });
    close(r.kappa, c.kappa);
    close(r.kappa, (r.observed - r.expected) / (1 - r.expected));
    close(
      cohenKappa(c.b, c.a, { weights: (c.weights ?? undefined) as "linear" | "quadratic" | undefined, labels: (c as { labels?: number[] }).labels }).kappa,
      c.kappa,
    );
  });
  // python: cohen_kappa_score(a, b, weights=None)
  it("random 1-5 scale, weights=None", () => {
    const c = {
      name: "random 1-5 scale, weights=None",
      a: [
        1, 1, 4, 3, 3, 4, 4, 1, 3, 1, 3, 5, 3, 1, 3, 1, 4, 5, 5, 4, 5, 2, 1, 3, 3, 4, 5, 2, 5, 1, 2, 4, 2, 4, 3, 3, 5, 5, 5, 3, 5, 5, 1, 2, 2, 3, 5, 3, 5, 2, 5,
        3, 4, 2, 3, 5, 5, 5, 5, 1, 4, 3, 4, 2, 1, 1, 5, 5, 2, 3, 2, 1, 5, 4, 1, 2, 3, 5, 5, 2,
      ],
      b: [
        1, 1, 3, 2, 3, 4, 5, 1, 3, 2, 3, 5, 4, 1, 4, 1, 3, 4, 4, 5, 4, 2, 2, 4, 4, 3, 5, 1, 4, 2, 1, 4, 1, 3, 4, 2, 4, 4, 5, 2, 5, 4, 1, 3, 1, 3, 5, 2, 5, 3, 5,
        2, 5, 1, 2, 5, 5, 5, 5, 1, 4, 4, 4, 1, 2, 1, 5, 4, 2, 2, 3, 2, 5, 4, 1, 3, 4, 4, 4, 1,
      ],
      weights: null,
      kappa: 0.26933540614069185,
    };
    const r = cohenKappa(c.a, c.b, { weights: (c.weights ?? undefined) as "linear" | "quadratic" | undefined, labels: (c as { labels?: number[] }).labels });
    close(r.kappa, c.kappa);
    close(r.kappa, (r.observed - r.expected) / (1 - r.expected));
    close(
      cohenKappa(c.b, c.a, { weights: (c.weights ?? undefined) as "linear" | "quadratic" | undefined, labels: (c as { labels?: number[] }).labels }).kappa,
      c.kappa,
    );
  });
  // python: cohen_kappa_score(a, b, weights='linear')
  it("random 1-5 scale, weights=linear", () => {
    const c = {
      name: "random 1-5 scale, weights=linear",
      a: [
        1, 1, 4, 3, 3, 4, 4, 1, 3, 1, 3, 5, 3, 1, 3, 1, 4, 5, 5, 4, 5, 2, 1, 3, 3, 4, 5, 2, 5, 1, 2, 4, 2, 4, 3, 3, 5, 5, 5, 3, 5, 5, 1, 2, 2, 3, 5, 3, 5, 2, 5,
        3, 4, 2, 3, 5, 5, 5, 5, 1, 4, 3, 4, 2, 1, 1, 5, 5, 2, 3, 2, 1, 5, 4, 1, 2, 3, 5, 5, 2,
      ],
      b: [
        1, 1, 3, 2, 3, 4, 5, 1, 3, 2, 3, 5, 4, 1, 4, 1, 3, 4, 4, 5, 4, 2, 2, 4, 4, 3, 5, 1, 4, 2, 1, 4, 1, 3, 4, 2, 4, 4, 5, 2, 5, 4, 1, 3, 1, 3, 5, 2, 5, 3, 5,
        2, 5, 1, 2, 5, 5, 5, 5, 1, 4, 4, 4, 1, 2, 1, 5, 4, 2, 2, 3, 2, 5, 4, 1, 3, 4, 4, 4, 1,
      ],
      weights: "linear",
      kappa: 0.640397857689365,
    };
    const r = cohenKappa(c.a, c.b, { weights: (c.weights ?? undefined) as "linear" | "quadratic" | undefined, labels: (c as { labels?: number[] }).labels });
    close(r.kappa, c.kappa);
    close(r.kappa, (r.observed - r.expected) / (1 - r.expected));
    close(
      cohenKappa(c.b, c.a, { weights: (c.weights ?? undefined) as "linear" | "quadratic" | undefined, labels: (c as { labels?: number[] }).labels }).kappa,
      c.kappa,
    );
  });
  // python: cohen_kappa_score(a, b, weights='quadratic')
  it("random 1-5 scale, weights=quadratic", () => {
    const c = {
      name: "random 1-5 scale, weights=quadratic",
      a: [
        1, 1, 4, 3, 3, 4, 4, 1, 3, 1, 3, 5, 3, 1, 3, 1, 4, 5, 5, 4, 5, 2, 1, 3, 3, 4, 5, 2, 5, 1, 2, 4, 2, 4, 3, 3, 5, 5, 5, 3, 5, 5, 1, 2, 2, 3, 5, 3, 5, 2, 5,
        3, 4, 2, 3, 5, 5, 5, 5, 1, 4, 3, 4, 2, 1, 1, 5, 5, 2, 3, 2, 1, 5, 4, 1, 2, 3, 5, 5, 2,
      ],
      b: [
        1, 1, 3, 2, 3, 4, 5, 1, 3, 2, 3, 5, 4, 1, 4, 1, 3, 4, 4, 5, 4, 2, 2, 4, 4, 3, 5, 1, 4, 2, 1, 4, 1, 3, 4, 2, 4, 4, 5, 2, 5, 4, 1, 3, 1, 3, 5, 2, 5, 3, 5,
        2, 5, 1, 2, 5, 5, 5, 5, 1, 4, 4, 4, 1, 2, 1, 5, 4, 2, 2, 3, 2, 5, 4, 1, 3, 4, 4, 4, 1,
      ],
      weights: "quadratic",
      kappa: 0.8591127098321343,
    };
    const r = cohenKappa(c.a, c.b, { weights: (c.weights ?? undefined) as "linear" | "quadratic" | undefined, labels: (c as { labels?: number[] }).labels });
    close(r.kappa, c.kappa);
    close(r.kappa, (r.observed - r.expected) / (1 - r.expected));
    close(
      cohenKappa(c.b, c.a, { weights: (c.weights ?? undefined) as "linear" | "quadratic" | undefined, labels: (c as { labels?: number[] }).labels }).kappa,
      c.kappa,
    );
  });
  // python: cohen_kappa_score(a, b, weights=None)
  it("string categories", () => {
    const c = {
      name: "string categories",
      a: [
        "give",
        "give",
        "give",
        "joke",
        "give",
        "joke",
        "agree",
        "give",
        "joke",
        "give",
        "joke",
        "give",
        "joke",
        "agree",
        "joke",
        "ask",
        "ask",
        "ask",
        "agree",
        "give",
        "joke",
        "ask",
        "ask",
        "joke",
        "give",
        "agree",
        "give",
        "agree",
        "ask",
        "agree",
        "joke",
        "agree",
        "joke",
        "joke",
        "agree",
        "joke",
        "give",
        "ask",
        "agree",
        "agree",
        "ask",
        "ask",
        "agree",
        "give",
        "give",
        "joke",
        "agree",
        "joke",
        "ask",
        "joke",
        "agree",
        "ask",
        "ask",
        "give",
        "agree",
        "ask",
        "agree",
        "joke",
        "ask",
        "ask",
      ],
      b: [
        "give",
        "give",
        "give",
        "give",
        "give",
        "joke",
        "agree",
        "give",
        "joke",
        "give",
        "joke",
        "give",
        "joke",
        "agree",
        "joke",
        "ask",
        "ask",
        "ask",
        "agree",
        "agree",
        "joke",
        "ask",
        "ask",
        "give",
        "joke",
        "agree",
        "joke",
        "agree",
        "ask",
        "agree",
        "agree",
        "agree",
        "joke",
        "joke",
        "give",
        "joke",
        "give",
        "ask",
        "agree",
        "agree",
        "ask",
        "ask",
        "agree",
        "give",
        "ask",
        "joke",
        "agree",
        "joke",
        "ask",
        "joke",
        "agree",
        "give",
        "ask",
        "give",
        "agree",
        "ask",
        "agree",
        "joke",
        "ask",
        "joke",
      ],
      weights: null,
      kappa: 0.7776130467012602,
    };
    const r = cohenKappa(c.a, c.b, { weights: (c.weights ?? undefined) as "linear" | "quadratic" | undefined, labels: (c as { labels?: number[] }).labels });
    close(r.kappa, c.kappa);
    close(r.kappa, (r.observed - r.expected) / (1 - r.expected));
    close(
      cohenKappa(c.b, c.a, { weights: (c.weights ?? undefined) as "linear" | "quadratic" | undefined, labels: (c as { labels?: number[] }).labels }).kappa,
      c.kappa,
    );
  });
  // python: cohen_kappa_score(a, b, labels=[0, 1])
  it("sklearn test: labels=[0,1] ignores spurious label 2", () => {
    const c = {
      name: "sklearn test: labels=[0,1] ignores spurious label 2",
      a: [
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
        1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2,
        2, 2,
      ],
      b: [
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
        1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2,
        2, 2,
      ],
      weights: null,
      labels: [0, 1],
      kappa: 0.34782608695652173,
    };
    const r = cohenKappa(c.a, c.b, { weights: (c.weights ?? undefined) as "linear" | "quadratic" | undefined, labels: (c as { labels?: number[] }).labels });
    close(r.kappa, c.kappa);
    close(r.kappa, (r.observed - r.expected) / (1 - r.expected));
    close(
      cohenKappa(c.b, c.a, { weights: (c.weights ?? undefined) as "linear" | "quadratic" | undefined, labels: (c as { labels?: number[] }).labels }).kappa,
      c.kappa,
    );
  });
});

describe("perCategoryScores vs sklearn precision_recall_fscore_support", () => {
  // python: precision_recall_fscore_support(a, b, zero_division=0)
  it("string categories, reference = a", () => {
    const c = {
      name: "string categories, reference = a",
      a: [
        "give",
        "give",
        "give",
        "joke",
        "give",
        "joke",
        "agree",
        "give",
        "joke",
        "give",
        "joke",
        "give",
        "joke",
        "agree",
        "joke",
        "ask",
        "ask",
        "ask",
        "agree",
        "give",
        "joke",
        "ask",
        "ask",
        "joke",
        "give",
        "agree",
        "give",
        "agree",
        "ask",
        "agree",
        "joke",
        "agree",
        "joke",
        "joke",
        "agree",
        "joke",
        "give",
        "ask",
        "agree",
        "agree",
        "ask",
        "ask",
        "agree",
        "give",
        "give",
        "joke",
        "agree",
        "joke",
        "ask",
        "joke",
        "agree",
        "ask",
        "ask",
        "give",
        "agree",
        "ask",
        "agree",
        "joke",
        "ask",
        "ask",
      ],
      b: [
        "give",
        "give",
        "give",
        "give",
        "give",
        "joke",
        "agree",
        "give",
        "joke",
        "give",
        "joke",
        "give",
        "joke",
        "agree",
        "joke",
        "ask",
        "ask",
        "ask",
        "agree",
        "agree",
        "joke",
        "ask",
        "ask",
        "give",
        "joke",
        "agree",
        "joke",
        "agree",
        "ask",
        "agree",
        "agree",
        "agree",
        "joke",
        "joke",
        "give",
        "joke",
        "give",
        "ask",
        "agree",
        "agree",
        "ask",
        "ask",
        "agree",
        "give",
        "ask",
        "joke",
        "agree",
        "joke",
        "ask",
        "joke",
        "agree",
        "give",
        "ask",
        "give",
        "agree",
        "ask",
        "agree",
        "joke",
        "ask",
        "joke",
      ],
      labels: ["agree", "ask", "give", "joke"],
      precision: [0.875, 0.9285714285714286, 0.7142857142857143, 0.8125],
      recall: [0.9333333333333333, 0.8666666666666667, 0.7142857142857143, 0.8125],
      f1: [0.9032258064516129, 0.896551724137931, 0.7142857142857143, 0.8125],
      support: [15, 15, 14, 16],
    };
    const r = perCategoryScores(c.a, c.b);
    expect(r.categories.map((x) => x.label)).toEqual(c.labels);
    r.categories.forEach((x, i) => {
      close(x.precision, c.precision[i]);
      close(x.recall, c.recall[i]);
      close(x.f1, c.f1[i]);
      expect(x.support).toBe(c.support[i]);
    });
  });
});

describe("krippendorffAlpha vs the pairwise definition", () => {
  // python: alpha_pairwise(ratings, 'nominal')
  it("Krippendorff 2011 4x12 example, nominal", () => {
    const c = {
      name: "Krippendorff 2011 4x12 example, nominal",
      ratings: [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, null, null, null],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, null, 3],
        [null, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, null],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, null],
      ],
      level: "nominal",
      alpha: 0.7434210526315791,
      do: 0.1999999999999999,
      de: 0.7794871794871795,
      n: 40,
    };
    const r = krippendorffAlpha(c.ratings, { level: c.level as MeasurementLevel });
    close(r.alpha, c.alpha);
    close(r.observedDisagreement, c.do);
    close(r.expectedDisagreement, c.de);
    expect(r.nPairable).toBe(c.n);
  });
  // python: alpha_pairwise(ratings, 'ordinal')
  it("Krippendorff 2011 4x12 example, ordinal", () => {
    const c = {
      name: "Krippendorff 2011 4x12 example, ordinal",
      ratings: [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, null, null, null],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, null, 3],
        [null, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, null],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, null],
      ],
      level: "ordinal",
      alpha: 0.8153875037548814,
      do: 47.27499999999999,
      de: 256.0769230769231,
      n: 40,
    };
    const r = krippendorffAlpha(c.ratings, { level: c.level as MeasurementLevel });
    close(r.alpha, c.alpha);
    close(r.observedDisagreement, c.do);
    close(r.expectedDisagreement, c.de);
    expect(r.nPairable).toBe(c.n);
  });
  // python: alpha_pairwise(ratings, 'interval')
  it("Krippendorff 2011 4x12 example, interval", () => {
    const c = {
      name: "Krippendorff 2011 4x12 example, interval",
      ratings: [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, null, null, null],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, null, 3],
        [null, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, null],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, null],
      ],
      level: "interval",
      alpha: 0.8491071428571428,
      do: 0.4333333333333333,
      de: 2.871794871794872,
      n: 40,
    };
    const r = krippendorffAlpha(c.ratings, { level: c.level as MeasurementLevel });
    close(r.alpha, c.alpha);
    close(r.observedDisagreement, c.do);
    close(r.expectedDisagreement, c.de);
    expect(r.nPairable).toBe(c.n);
  });
  // python: alpha_pairwise(ratings, 'ratio')
  it("Krippendorff 2011 4x12 example, ratio", () => {
    const c = {
      name: "Krippendorff 2011 4x12 example, ratio",
      ratings: [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, null, null, null],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, null, 3],
        [null, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, null],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, null],
      ],
      level: "ratio",
      alpha: 0.7974027747116128,
      do: 0.02243272864701435,
      de: 0.11072574471384031,
      n: 40,
    };
    const r = krippendorffAlpha(c.ratings, { level: c.level as MeasurementLevel });
    close(r.alpha, c.alpha);
    close(r.observedDisagreement, c.do);
    close(r.expectedDisagreement, c.de);
    expect(r.nPairable).toBe(c.n);
  });
  // python: alpha_pairwise(ratings, 'nominal')
  it("random 3 coders x 40 units, 20% missing, nominal", () => {
    const c = {
      name: "random 3 coders x 40 units, 20% missing, nominal",
      ratings: [
        [5, 5, 2, 2, 3, 5, null, 2, 4, 5, 1, 3, null, null, 4, 7, 1, 6, 4, 7, 6, 3, 1, 7, 2, 4, null, null, 4, 2, null, 3, 7, 7, null, null, 6, 7, 4, 5],
        [6, 7, null, 4, 2, 5, 7, null, 3, 7, 1, 4, null, 1, 6, 7, 2, 6, 4, null, 6, 4, null, 6, null, null, 7, 3, 3, 1, 3, 5, 6, 6, 1, 4, 4, 6, 4, 4],
        [null, 5, 1, 4, 2, null, 6, 2, null, 5, 2, 3, 3, 1, null, 6, 1, null, 5, 6, 6, 4, 1, 5, 1, 5, 7, null, null, 1, 1, 4, 7, 5, null, 5, 6, 5, 3, 5],
      ],
      level: "nominal",
      alpha: 0.20808940926024488,
      do: 0.6808510638297872,
      de: 0.8597574925646305,
      n: 94,
    };
    const r = krippendorffAlpha(c.ratings, { level: c.level as MeasurementLevel });
    close(r.alpha, c.alpha);
    close(r.observedDisagreement, c.do);
    close(r.expectedDisagreement, c.de);
    expect(r.nPairable).toBe(c.n);
  });
  // python: alpha_pairwise(ratings, 'ordinal')
  it("random 3 coders x 40 units, 20% missing, ordinal", () => {
    const c = {
      name: "random 3 coders x 40 units, 20% missing, ordinal",
      ratings: [
        [5, 5, 2, 2, 3, 5, null, 2, 4, 5, 1, 3, null, null, 4, 7, 1, 6, 4, 7, 6, 3, 1, 7, 2, 4, null, null, 4, 2, null, 3, 7, 7, null, null, 6, 7, 4, 5],
        [6, 7, null, 4, 2, 5, 7, null, 3, 7, 1, 4, null, 1, 6, 7, 2, 6, 4, null, 6, 4, null, 6, null, null, 7, 3, 3, 1, 3, 5, 6, 6, 1, 4, 4, 6, 4, 4],
        [null, 5, 1, 4, 2, null, 6, 2, null, 5, 2, 3, 3, 1, null, 6, 1, null, 5, 6, 6, 4, 1, 5, 1, 5, 7, null, null, 1, 1, 4, 7, 5, null, 5, 6, 5, 3, 5],
      ],
      level: "ordinal",
      alpha: 0.8324078666100658,
      do: 243.68617021276594,
      de: 1454.0430107526881,
      n: 94,
    };
    const r = krippendorffAlpha(c.ratings, { level: c.level as MeasurementLevel });
    close(r.alpha, c.alpha);
    close(r.observedDisagreement, c.do);
    close(r.expectedDisagreement, c.de);
    expect(r.nPairable).toBe(c.n);
  });
  // python: alpha_pairwise(ratings, 'interval')
  it("random 3 coders x 40 units, 20% missing, interval", () => {
    const c = {
      name: "random 3 coders x 40 units, 20% missing, interval",
      ratings: [
        [5, 5, 2, 2, 3, 5, null, 2, 4, 5, 1, 3, null, null, 4, 7, 1, 6, 4, 7, 6, 3, 1, 7, 2, 4, null, null, 4, 2, null, 3, 7, 7, null, null, 6, 7, 4, 5],
        [6, 7, null, 4, 2, 5, 7, null, 3, 7, 1, 4, null, 1, 6, 7, 2, 6, 4, null, 6, 4, null, 6, null, null, 7, 3, 3, 1, 3, 5, 6, 6, 1, 4, 4, 6, 4, 4],
        [null, 5, 1, 4, 2, null, 6, 2, null, 5, 2, 3, 3, 1, null, 6, 1, null, 5, 6, 6, 4, 1, 5, 1, 5, 7, null, null, 1, 1, 4, 7, 5, null, 5, 6, 5, 3, 5],
      ],
      level: "interval",
      alpha: 0.8457391664938835,
      do: 1.1914893617021276,
      de: 7.723861816517959,
      n: 94,
    };
    const r = krippendorffAlpha(c.ratings, { level: c.level as MeasurementLevel });
    close(r.alpha, c.alpha);
    close(r.observedDisagreement, c.do);
    close(r.expectedDisagreement, c.de);
    expect(r.nPairable).toBe(c.n);
  });
  // python: alpha_pairwise(ratings, 'ratio')
  it("random 3 coders x 40 units, 20% missing, ratio", () => {
    const c = {
      name: "random 3 coders x 40 units, 20% missing, ratio",
      ratings: [
        [5, 5, 2, 2, 3, 5, null, 2, 4, 5, 1, 3, null, null, 4, 7, 1, 6, 4, 7, 6, 3, 1, 7, 2, 4, null, null, 4, 2, null, 3, 7, 7, null, null, 6, 7, 4, 5],
        [6, 7, null, 4, 2, 5, 7, null, 3, 7, 1, 4, null, 1, 6, 7, 2, 6, 4, null, 6, 4, null, 6, null, null, 7, 3, 3, 1, 3, 5, 6, 6, 1, 4, 4, 6, 4, 4],
        [null, 5, 1, 4, 2, null, 6, 2, null, 5, 2, 3, 3, 1, null, 6, 1, null, 5, 6, 6, 4, 1, 5, 1, 5, 7, null, null, 1, 1, 4, 7, 5, null, 5, 6, 5, 3, 5],
      ],
      level: "ratio",
      alpha: 0.7971580453505938,
      do: 0.02949244421546056,
      de: 0.14539617440797964,
      n: 94,
    };
    const r = krippendorffAlpha(c.ratings, { level: c.level as MeasurementLevel });
    close(r.alpha, c.alpha);
    close(r.observedDisagreement, c.do);
    close(r.expectedDisagreement, c.de);
    expect(r.nPairable).toBe(c.n);
  });
});

describe("Fleiss kappa (1971 and generalised)", () => {
  // python: Fleiss (1971) formulas, see reference.py
  it("Fleiss 1971 / Wikipedia worked example (10 subjects, 5 categories, 14 raters)", () => {
    const c = {
      name: "Fleiss 1971 / Wikipedia worked example (10 subjects, 5 categories, 14 raters)",
      counts: [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
      ],
      kappa: 0.20993070442195522,
      pBar: 0.378021978021978,
      pE: 0.21275510204081632,
    };
    const r =
      "counts" in c ? fleissKappa((c as { counts: number[][] }).counts) : fleissKappaFromRatings((c as unknown as { ratings: (number | null)[][] }).ratings);
    close(r.kappa, c.kappa);
    close(r.pBar, c.pBar);
    close(r.pE, c.pE);
  });
  // python: generalised Fleiss (Gwet 2014), see reference.py
  it("Krippendorff 2011 4x12 example (varying raters) (generalised)", () => {
    const c = {
      name: "Krippendorff 2011 4x12 example (varying raters) (generalised)",
      ratings: [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, null, null, null],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, null, 3],
        [null, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, null],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, null],
      ],
      kappa: 0.7611692754224112,
      pBar: 0.8181818181818182,
      pE: 0.2387152777777778,
    };
    const r =
      "counts" in c ? fleissKappa((c as { counts: number[][] }).counts) : fleissKappaFromRatings((c as unknown as { ratings: (number | null)[][] }).ratings);
    close(r.kappa, c.kappa);
    close(r.pBar, c.pBar);
    close(r.pE, c.pE);
  });
  // python: generalised Fleiss (Gwet 2014), see reference.py
  it("random 3 coders x 40 units, 20% missing (generalised)", () => {
    const c = {
      name: "random 3 coders x 40 units, 20% missing (generalised)",
      ratings: [
        [5, 5, 2, 2, 3, 5, null, 2, 4, 5, 1, 3, null, null, 4, 7, 1, 6, 4, 7, 6, 3, 1, 7, 2, 4, null, null, 4, 2, null, 3, 7, 7, null, null, 6, 7, 4, 5],
        [6, 7, null, 4, 2, 5, 7, null, 3, 7, 1, 4, null, 1, 6, 7, 2, 6, 4, null, 6, 4, null, 6, null, null, 7, 3, 3, 1, 3, 5, 6, 6, 1, 4, 4, 6, 4, 4],
        [null, 5, 1, 4, 2, null, 6, 2, null, 5, 2, 3, 3, 1, null, 6, 1, null, 5, 6, 6, 4, 1, 5, 1, 5, 7, null, null, 1, 1, 4, 7, 5, null, 5, 6, 5, 3, 5],
      ],
      kappa: 0.20864337293780166,
      pBar: 0.3243243243243244,
      pE: 0.14618055555555554,
    };
    const r =
      "counts" in c ? fleissKappa((c as { counts: number[][] }).counts) : fleissKappaFromRatings((c as unknown as { ratings: (number | null)[][] }).ratings);
    close(r.kappa, c.kappa);
    close(r.pBar, c.pBar);
    close(r.pE, c.pE);
  });
});

describe("gwetAC1 vs Gwet's formulas", () => {
  // python: Gwet AC1 (Gwet 2008/2014), see reference.py
  it("Krippendorff 2011 4x12 example (varying raters)", () => {
    const c = {
      name: "Krippendorff 2011 4x12 example (varying raters)",
      ratings: [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, null, null, null],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, null, 3],
        [null, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, null],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, null],
      ],
      ac1: 0.775444068126995,
      pa: 0.8181818181818182,
      pe: 0.19032118055555555,
    };
    const r = gwetAC1(c.ratings);
    close(r.ac1, c.ac1);
    close(r.pa, c.pa);
    close(r.pe, c.pe);
  });
  // python: Gwet AC1 (Gwet 2008/2014), see reference.py
  it("random 3 coders x 40 units, 20% missing", () => {
    const c = {
      name: "random 3 coders x 40 units, 20% missing",
      ratings: [
        [5, 5, 2, 2, 3, 5, null, 2, 4, 5, 1, 3, null, null, 4, 7, 1, 6, 4, 7, 6, 3, 1, 7, 2, 4, null, null, 4, 2, null, 3, 7, 7, null, null, 6, 7, 4, 5],
        [6, 7, null, 4, 2, 5, 7, null, 3, 7, 1, 4, null, 1, 6, 7, 2, 6, 4, null, 6, 4, null, 6, null, null, 7, 3, 3, 1, 3, 5, 6, 6, 1, 4, 4, 6, 4, 4],
        [null, 5, 1, 4, 2, null, 6, 2, null, 5, 2, 3, 3, 1, null, 6, 1, null, 5, 6, 6, 4, 1, 5, 1, 5, 7, null, null, 1, 1, 4, 7, 5, null, 5, 6, 5, 3, 5],
      ],
      ac1: 0.21222078971218714,
      pa: 0.3243243243243244,
      pe: 0.14230324074074074,
    };
    const r = gwetAC1(c.ratings);
    close(r.ac1, c.ac1);
    close(r.pa, c.pa);
    close(r.pe, c.pe);
  });
});

describe("published figures (to the 3 decimals the authors print)", () => {
  const K = null;
  // Krippendorff (2011) "Computing Krippendorff's Alpha-Reliability", section C: 4 observers x 12 units, missing data.
  const data = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, K, K, K],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, K, 3],
    [K, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, K],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, K],
  ];
  it.each([
    ["nominal", 0.743],
    ["ordinal", 0.815],
    ["interval", 0.849],
    ["ratio", 0.797],
  ] as const)("alpha %s = %f", (level, published) => {
    const r = krippendorffAlpha(data, { level });
    expect(r.alpha.toFixed(3)).toBe(published.toFixed(3));
    expect(r.unitsDropped).toBe(1); // unit 12 has a single value
    expect(r.nPairable).toBe(40);
  });
  it("Gwet AC1 0.77544 and generalised Fleiss 0.76117 (irrCAC documentation, cac.raw4raters = the same data)", () => {
    expect(gwetAC1(data).ac1.toFixed(5)).toBe("0.77544");
    expect(fleissKappaFromRatings(data).kappa.toFixed(5)).toBe("0.76117");
  });
  it("Fleiss 1971 / Wikipedia example: kappa 0.210, P̄ 0.378, P̄e 0.213", () => {
    const r = fleissKappa([
      [0, 0, 0, 0, 14],
      [0, 2, 6, 4, 2],
      [0, 0, 3, 5, 6],
      [0, 3, 9, 2, 0],
      [2, 2, 8, 1, 1],
      [7, 7, 0, 0, 0],
      [3, 2, 6, 3, 0],
      [2, 5, 3, 2, 2],
      [6, 5, 2, 1, 0],
      [0, 2, 2, 3, 7],
    ]);
    expect(r.kappa.toFixed(3)).toBe("0.210");
    expect(r.pBar.toFixed(3)).toBe("0.378");
    expect(r.pE.toFixed(3)).toBe("0.213");
  });
});

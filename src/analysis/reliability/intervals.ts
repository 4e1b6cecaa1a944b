import type { BootstrapInterval, BootstrapOptions } from "./bootstrap.js";
import { cohenKappa, type CohenKappaOptions } from "./kappa.js";
import { alphaFromUnits, alphaUnits, type KrippendorffOptions } from "./krippendorff.js";
import { bootstrapPatterns, kappaFromPatterns, unitPatterns } from "./patterns.js";
import type { Rating } from "./values.js";

/**
 * Bootstrap CI of Cohen's kappa, resampling units (pairs of ratings). Labels and weights are
 * fixed from the full data so every replicate measures on the same scale.
 */
export function cohenKappaInterval(a: readonly Rating[], b: readonly Rating[], options: CohenKappaOptions & BootstrapOptions = {}): BootstrapInterval {
  const full = cohenKappa(a, b, options); // validates the pairs and fixes the label set
  const patterns = unitPatterns([a, b]);
  return bootstrapPatterns(patterns, [kappaFromPatterns(patterns, 0, 1, full.labels, options.weights)], options)[0];
}

/** Bootstrap CI of Krippendorff's alpha, resampling units (all units; those with < 2 values never count). */
export function krippendorffAlphaInterval(ratings: readonly (readonly Rating[])[], options: KrippendorffOptions & BootstrapOptions): BootstrapInterval {
  const patterns = unitPatterns(ratings);
  const data = alphaUnits(patterns.ratings, options);
  return bootstrapPatterns(patterns, [(counts) => alphaFromUnits(data, options.level, undefined, counts).alpha], options)[0];
}

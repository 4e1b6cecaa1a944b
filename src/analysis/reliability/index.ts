// Inter-coder reliability: kappa family, Krippendorff's alpha, Gwet's AC1, bootstrap intervals.
export type { Rating } from "./values.js";
export {
  cohenKappa,
  percentAgreement,
  confusionMatrix,
  perCategoryScores,
  type CohenKappa,
  type CohenKappaOptions,
  type PercentAgreement,
  type ConfusionMatrix,
  type CategoryScore,
} from "./kappa.js";
export { krippendorffAlpha, type KrippendorffAlpha, type KrippendorffOptions, type MeasurementLevel } from "./krippendorff.js";
export { fleissKappa, fleissKappaFromRatings, type FleissKappa } from "./fleiss.js";
export { gwetAC1, type GwetAC1 } from "./gwet.js";
export { ratingsToCounts } from "./multirater.js";
export { bootstrapCI, bootstrapSeries, mulberry32, type BootstrapInterval, type BootstrapOptions } from "./bootstrap.js";
export { cohenKappaInterval, krippendorffAlphaInterval } from "./intervals.js";

// Helpers several analyses share (one word rule, session thirds, coded-turn tables, rating
// summaries), re-exported by ../index.ts.
export { codedTurns, summarise, UNCODED, NO_CONDITION, type CodedTurns, type CodedSession, type Summary as MetricSummary } from "./table.js";
export { countWords } from "./words.js";
export { timeSpan, thirdOf, THIRDS, type TimeSpan, type Third } from "./measures.js";
export { summariseRatings, quantileSorted, type RatingSummary } from "./scales.js";

/**
 * MTLD, the Measure of Textual Lexical Diversity (McCarthy & Jarvis 2010, Behavior Research
 * Methods 42(2), 381-392).
 *
 * Walk the words keeping a running type-token ratio (TTR). Each time the TTR falls to the
 * threshold (0.72) or below, one full "factor" is complete: count it and restart the TTR.
 * The words left over at the end form a partial factor worth
 * (1 - TTR) / (1 - 0.72) of a factor. MTLD = words / factors, computed forward and over the
 * reversed text; the reported value is the mean of the two.
 * A text whose TTR never leaves 1 has zero factors: MTLD is undefined there (returned as null).
 * The authors advise at least 100 words for a stable value; `tokens` is reported beside it.
 */
export const MTLD_THRESHOLD = 0.72;

/** One direction of MTLD: the factor count and words / factors (null when factors = 0). */
export function mtldPass(words: readonly string[], threshold = MTLD_THRESHOLD): { factors: number; value: number | null } {
  let factors = 0;
  let types = new Set<string>();
  let count = 0;
  let ttr = 1;
  for (const word of words) {
    count++;
    types.add(word);
    ttr = types.size / count;
    if (ttr <= threshold) {
      factors++;
      types = new Set();
      count = 0;
      ttr = 1;
    }
  }
  if (count > 0) factors += (1 - ttr) / (1 - threshold);
  return { factors, value: factors > 0 ? words.length / factors : null };
}

export interface MtldResult {
  /** Mean of forward and backward MTLD; null when either is undefined (no factor at all). */
  mtld: number | null;
  forward: number | null;
  backward: number | null;
  tokens: number;
}

/** MTLD of a word sequence (lower-case words, as `words()` returns them). */
export function mtld(words: readonly string[], threshold = MTLD_THRESHOLD): MtldResult {
  const forward = mtldPass(words, threshold).value;
  const backward = mtldPass([...words].reverse(), threshold).value;
  return { mtld: forward === null || backward === null ? null : (forward + backward) / 2, forward, backward, tokens: words.length };
}

import { words } from "../concepts/tokens.js";
import { isStopWord } from "../concepts/stopwords.js";
import { singular } from "../concepts/tagger.js";

const LABEL_STOP = new Set(["a", "an", "the", "and", "or", "of", "for", "to", "in", "on", "with", "about", "from", "by", "at"]);

/** Content tokens of a topic label: lower case, singular, without function words. */
export function labelTokens(label: string): Set<string> {
  return new Set(
    words(label)
      .filter((w) => !LABEL_STOP.has(w) && !isStopWord(w))
      .map((w) => (w.length > 3 && w.endsWith("s") && !w.endsWith("ss") ? singular(w) : w)),
  );
}

/** Dice coefficient 2|A∩B| / (|A| + |B|); 0 when both are empty. */
export function dice<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): number {
  if (a.size + b.size === 0) return 0;
  let shared = 0;
  for (const x of a) if (b.has(x)) shared++;
  return (2 * shared) / (a.size + b.size);
}

/** Jaccard |A∩B| / |A∪B|; 0 when both are empty. */
export function jaccard<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): number {
  let shared = 0;
  for (const x of a) if (b.has(x)) shared++;
  const union = a.size + b.size - shared;
  return union === 0 ? 0 : shared / union;
}

import { CliError } from "./errors.js";

/**
 * Edit distance counting insertions, deletions, substitutions and swaps of two neighbouring
 * letters (optimal string alignment): "hlom" is one typo away from "holm", not two.
 */
export function editDistance(a: string, b: string): number {
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j], before[j - 2] + 1);
    }
    [before, previous] = [previous, row];
  }
  return previous[b.length];
}

/**
 * The choice a typo most likely meant: the closest by edit distance (case ignored), when it is
 * close enough to be a typo (at most a third of the longer word, at least 1) rather than another word.
 */
export function closest(value: string, choices: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const choice of choices) {
    const distance = editDistance(value.toLowerCase(), choice.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [choice, distance];
  }
  const allowed = Math.max(1, Math.floor(Math.max(value.length, best?.length ?? 0) / 3));
  return bestDistance <= allowed ? best : undefined;
}

/** `; did you mean "within"?` when a choice is close to `value`, else "". For the end of an error message. */
export function didYouMean(value: string, choices: readonly string[]): string {
  const guess = closest(value, choices);
  return guess === undefined ? "" : `; did you mean "${guess}"?`;
}

/** `value` when it is one of `allowed`, else a CliError naming the flag, the choices and the likely one. */
export function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new CliError(`${flag} "${value}": expected ${allowed.join(", ")}${didYouMean(value, allowed)}`);
}

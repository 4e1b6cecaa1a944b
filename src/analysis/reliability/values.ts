/** Shared handling of rating values: what counts as missing, and the order of categories. */

/** One rating: a category label or a number; null (or undefined / NaN) means "not rated". */
export type Rating = string | number | null | undefined;

export function isMissing(value: Rating): value is null | undefined {
  return value === null || value === undefined || (typeof value === "number" && Number.isNaN(value));
}

/**
 * Sorted distinct values, as numpy.unique sorts them (numbers numerically, strings by code
 * point). Mixing numbers and strings is refused: the order would be meaningless for weights.
 */
export function sortedLabels(values: Iterable<string | number>, where: string): (string | number)[] {
  const distinct = [...new Set(values)];
  const numbers = distinct.filter((v) => typeof v === "number");
  if (numbers.length > 0 && numbers.length < distinct.length) {
    throw new Error(`${where}: ratings mix numbers and strings (${JSON.stringify(distinct.slice(0, 6))}); use one type for all categories`);
  }
  return numbers.length > 0 ? (distinct as number[]).sort((a, b) => a - b) : (distinct as string[]).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Throw unless every coder rated the same number of units (the [coder][unit] matrix is rectangular). */
export function assertRectangular(ratings: readonly (readonly Rating[])[], where: string): number {
  if (ratings.length === 0) throw new Error(`${where}: no coders given`);
  const units = ratings[0].length;
  ratings.forEach((row, c) => {
    if (row.length !== units) {
      throw new Error(
        `${where}: coder ${c} has ${row.length} ratings but coder 0 has ${units}; ratings[coder][unit] must list every unit for every coder (null where missing)`,
      );
    }
  });
  return units;
}

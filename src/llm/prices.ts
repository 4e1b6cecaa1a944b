/**
 * Model prices in USD per 1 million tokens, for the cost estimate printed after a run.
 * Deliberately small and dated: prices change, so studies can override or extend this table
 * in colloquy.json (`model.prices: {"my-model": {"input": 0.5, "output": 1.5}}`).
 * Source: OpenAI's public price list (standard tier), checked 2025.
 */
export interface ModelPrice {
  /** USD per 1M prompt tokens. */
  input: number;
  /** USD per 1M completion tokens. */
  output: number;
}

export type PriceTable = Record<string, ModelPrice>;

export const DEFAULT_PRICES: PriceTable = {
  "gpt-4o-mini": { input: 0.15, output: 0.6 },
  "gpt-4o": { input: 2.5, output: 10 },
  "gpt-4.1": { input: 2, output: 8 },
  "gpt-4.1-mini": { input: 0.4, output: 1.6 },
  "gpt-4.1-nano": { input: 0.1, output: 0.4 },
  "gpt-5": { input: 1.25, output: 10 },
  "gpt-5-mini": { input: 0.25, output: 2 },
  "gpt-5-nano": { input: 0.05, output: 0.4 },
  "o4-mini": { input: 1.1, output: 4.4 },
  o3: { input: 2, output: 8 },
};

/**
 * Price of a model: an override first, then the table by exact name, then by the longest
 * table name that prefixes it (dated snapshots such as gpt-4o-mini-2024-07-18).
 * A model served from a local endpoint costs nothing unless the study says otherwise.
 */
export function priceFor(model: string, options: { overrides?: PriceTable; local?: boolean } = {}): ModelPrice | undefined {
  const table = { ...DEFAULT_PRICES, ...(options.overrides ?? {}) };
  if (table[model]) return table[model];
  if (options.local) return { input: 0, output: 0 };
  const prefix = Object.keys(table)
    .filter((name) => model.startsWith(name + "-"))
    .sort((a, b) => b.length - a.length)[0];
  return prefix ? table[prefix] : undefined;
}

/** USD for the given token counts, or undefined when the price is unknown. */
export function estimateCost(price: ModelPrice | undefined, promptTokens: number, completionTokens: number): number | undefined {
  if (!price) return undefined;
  return (promptTokens * price.input + completionTokens * price.output) / 1_000_000;
}

/**
 * Batch API price as a share of the standard one: OpenAI bills batch requests (answered within
 * 24 h) at half the standard price, input and output alike.
 */
export const BATCH_PRICE_FACTOR = 0.5;

/** The batch price of a model whose standard price is `price`. */
export function batchPrice(price: ModelPrice | undefined): ModelPrice | undefined {
  return price && { input: price.input * BATCH_PRICE_FACTOR, output: price.output * BATCH_PRICE_FACTOR };
}

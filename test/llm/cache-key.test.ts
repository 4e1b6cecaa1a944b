import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { cacheKey, type CacheKeyInput } from "../../src/llm/cache.js";
import { hashValue } from "../../src/util/hash.js";

const reference = (input: CacheKeyInput) =>
  hashValue({
    model: input.model,
    messages: input.messages,
    temperature: input.temperature,
    seed: input.seed,
    responseFormat: input.responseFormat,
    maxTokens: input.maxTokens,
  });

const message = fc.record(
  {
    role: fc.constantFrom("system" as const, "user" as const, "assistant" as const),
    content: fc.string({ unit: "grapheme", maxLength: 40 }),
    name: fc.option(fc.string({ maxLength: 5 }), { nil: undefined }),
  },
  { requiredKeys: ["role", "content"] },
);

describe("cacheKey", () => {
  it("equals sha256(stableStringify({...})) for any input, long system prompts (memoised path) included", () => {
    const longSystem = 'Codebook "quoted" \\ é 😀\n'.repeat(150);
    fc.assert(
      fc.property(
        fc.array(message, { maxLength: 4 }),
        fc.boolean(),
        fc.option(fc.integer({ min: 0, max: 5000 }), { nil: undefined }),
        fc.option(fc.integer(), { nil: undefined }),
        fc.constantFrom(0, 0.7),
        fc.constantFrom(undefined, { type: "json_object" as const }, { type: "json_schema" as const, name: "x", schema: { b: 1, a: [2, { d: 1, c: 2 }] } }),
        (rest, long, maxTokens, seed, temperature, responseFormat) => {
          const messages = long ? [{ role: "system" as const, content: longSystem }, ...rest] : rest;
          const input: CacheKeyInput = { model: "gpt-x", messages, temperature, seed, responseFormat, maxTokens };
          expect(cacheKey(input)).toBe(reference(input));
          // Second call goes through the memoised state and must agree too.
          expect(cacheKey(input)).toBe(reference(input));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("changes when anything that determines the reply changes", () => {
    const base: CacheKeyInput = {
      model: "m",
      messages: [
        { role: "system", content: "s".repeat(3000) },
        { role: "user", content: "u" },
      ],
      temperature: 0,
    };
    const keys = new Set([
      cacheKey(base),
      cacheKey({ ...base, model: "n" }),
      cacheKey({ ...base, temperature: 1 }),
      cacheKey({ ...base, seed: 1 }),
      cacheKey({ ...base, maxTokens: 10 }),
      cacheKey({ ...base, responseFormat: { type: "json_object" } }),
      cacheKey({
        ...base,
        messages: [
          { role: "system", content: "s".repeat(2999) + "t" },
          { role: "user", content: "u" },
        ],
      }),
      cacheKey({ ...base, messages: [base.messages[0], { role: "user", content: "v" }] }),
    ]);
    expect(keys.size).toBe(8);
  });
});

import { describe, expect, it } from "vitest";
import { closest, didYouMean, editDistance, oneOf } from "../../src/util/did-you-mean.js";

describe("did you mean", () => {
  it("counts edits as Levenshtein does (kitten -> sitting is 3), a swap of neighbours as one", () => {
    expect(editDistance("kitten", "sitting")).toBe(3);
    expect(editDistance("", "abc")).toBe(3);
    expect(editDistance("flaw", "lawn")).toBe(2);
    expect(editDistance("same", "same")).toBe(0);
    expect(editDistance("hlom", "holm")).toBe(1);
    expect(editDistance("ca", "abc")).toBe(3); // optimal string alignment, not full Damerau (2)
  });
  it("guesses a close choice, and nothing for a different word", () => {
    expect(closest("gives-opinon", ["gives-opinion", "gives-orientation", "asks-opinion"])).toBe("gives-opinion");
    expect(closest("WITHIN", ["within", "between"])).toBe("within");
    expect(closest("docx", ["md", "html"])).toBeUndefined();
    expect(didYouMean("bh", ["holm", "bh", "none"])).toBe('; did you mean "bh"?');
  });
  it("oneOf returns an allowed value and names flag, choices and guess otherwise", () => {
    expect(oneOf("--adjust", "holm", ["holm", "bh", "none"])).toBe("holm");
    expect(() => oneOf("--adjust", "hlom", ["holm", "bh", "none"])).toThrow('--adjust "hlom": expected holm, bh, none; did you mean "holm"?');
  });
});

// One APA rule for p everywhere a reader sees one: the report's text (apaP), the dashboard
// (fmtP in web/lib/format.ts) and the analyses' notes all print the same p the same way.
import { describe, expect, it } from "vitest";
import { apaP } from "../../src/report/apa.js";
import { fmtP } from "../../web/lib/format.js";
import { formatPValue } from "../../src/util/p-value.js";

// [p, as printed without "p", as the report writes it]
const cases: [number, string, string][] = [
  [0, "< .001", "p < .001"],
  [0.0004, "< .001", "p < .001"],
  [0.000999, "< .001", "p < .001"],
  [0.001, ".001", "p = .001"],
  [0.0314, ".031", "p = .031"],
  [0.05, ".050", "p = .050"],
  [0.5, ".500", "p = .500"],
  [0.9994, ".999", "p = .999"],
  // Three decimals would print 1.000: APA never reports p as 1.
  [0.9995, "> .999", "p > .999"],
  [0.99999, "> .999", "p > .999"],
  [1, "> .999", "p > .999"],
];

describe("p-values in APA style", () => {
  for (const [p, bare, withP] of cases) {
    it(`${p} -> "${bare}" in the dashboard, "${withP}" in the report`, () => {
      expect(formatPValue(p)).toBe(bare);
      expect(fmtP(p)).toBe(bare);
      expect(apaP(p)).toBe(withP);
    });
  }
  it("missing p: an en dash in the dashboard, n/a in the report", () => {
    for (const p of [null, undefined, NaN]) {
      expect(fmtP(p)).toBe("–");
      expect(apaP(p)).toBe("p = n/a");
    }
  });
  it("no leading zero and never 1.000 or .000, over the whole range", () => {
    for (let i = 0; i <= 20000; i++) {
      const p = i / 20000;
      const s = fmtP(p);
      expect(s).not.toMatch(/^0|1\.000|^\.000$/);
      expect(apaP(p)).toBe(s.startsWith("<") || s.startsWith(">") ? `p ${s}` : `p = ${s}`);
    }
  });
});

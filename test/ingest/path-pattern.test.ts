import { describe, expect, it } from "vitest";
import { compilePathPattern, PathPatternError } from "../../src/ingest/path-pattern.js";

describe("compilePathPattern", () => {
  it("matches the last segments of any path, whatever folder the user named", () => {
    const p = compilePathPattern("{condition}/{run}/*");
    expect(p.match("/data/published/hierarchical/3/run-3.md")).toEqual({ condition: "hierarchical", run: "3" });
    expect(p.match("hierarchical/3/run-3.md")).toEqual({ condition: "hierarchical", run: "3" });
    expect(p.match("C:\\data\\flat\\12\\run-12.md")).toEqual({ condition: "flat", run: "12" });
  });
  it("captures inside a file name and keeps literal parts literal", () => {
    const p = compilePathPattern("{condition}/run-{run}.md");
    expect(p.match("x/with space/run-7.md")).toEqual({ condition: "with space", run: "7" });
    expect(p.match("x/flat/run-7.txt")).toBeUndefined();
    expect(p.match("x/flat/runX7.md")).toBeUndefined();
  });
  it("returns undefined for paths with too few segments", () => {
    expect(compilePathPattern("{condition}/{run}/*").match("run-1.md")).toBeUndefined();
  });
  it("rejects patterns that capture nothing, repeat a name or are malformed", () => {
    expect(() => compilePathPattern("*/*")).toThrow(PathPatternError);
    expect(() => compilePathPattern("{run}/{run}")).toThrow(/appears twice/);
    expect(() => compilePathPattern("{run/x")).toThrow(/placeholder/);
    expect(() => compilePathPattern("")).toThrow(/empty/);
  });
});

import { describe, expect, it } from "vitest";
import type { Stats } from "node:fs";
import { settled } from "../../src/util/file-stamp.js";

const at = (mtimeMs: number) => ({ mtimeMs }) as Stats;

describe("settled: when what was read from a file may be remembered under its stamp", () => {
  it("a filesystem with sub-second times: after 100 ms (ten kernel clock ticks and more)", () => {
    const written = 1_764_300_000_123.456;
    expect(settled(at(written), written + 50)).toBe(false);
    expect(settled(at(written), written + 100)).toBe(false);
    expect(settled(at(written), written + 101)).toBe(true);
  });

  it("a filesystem that keeps whole seconds (FAT, HFS+, some network filesystems): after 2 s", () => {
    const written = 1_764_300_000_000;
    expect(settled(at(written), written + 101)).toBe(false);
    expect(settled(at(written), written + 2000)).toBe(false);
    expect(settled(at(written), written + 2001)).toBe(true);
  });
});

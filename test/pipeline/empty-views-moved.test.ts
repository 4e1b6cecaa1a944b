// The end-of-run warnings are remembered between runs, and some name the study's own paths
// (colloquy.json, `--study <root>`): a study copied or moved to another folder must not replay
// warnings that point at the old one.
import { describe, expect, it } from "vitest";
import { cp, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rememberedEmptyViewWarnings } from "../../src/pipeline/empty-views.js";
import { FileHasher } from "../../src/pipeline/fingerprint.js";
import type { PipelineState } from "../../src/pipeline/state.js";
import { openStudy } from "../../src/stages/context.js";

const demo = join(import.meta.dirname, "../../fixtures/demo-study");

describe("remembered end-of-run warnings", () => {
  it("name the folder the study is in now, not the one it was copied from", async () => {
    const base = await mkdtemp(join(tmpdir(), "colloquy-moved-"));
    const first = join(base, "first");
    await cp(demo, first, { recursive: true });
    // No declared design: the warning names the colloquy.json to declare it in.
    const config = JSON.parse(await readFile(join(first, "colloquy.json"), "utf8"));
    delete config.compare.design;
    await writeFile(join(first, "colloquy.json"), JSON.stringify(config));
    const state = {} as PipelineState;
    const before = await rememberedEmptyViewWarnings(await openStudy(first), new FileHasher(first, {}), state);
    expect(before.join("\n")).toContain(join(first, "colloquy.json"));

    const second = join(base, "second");
    await cp(first, second, { recursive: true });
    const after = await rememberedEmptyViewWarnings(await openStudy(second), new FileHasher(second, {}), state);
    expect(after.join("\n")).toContain(join(second, "colloquy.json"));
    expect(after.join("\n")).not.toContain(first);
  }, 60_000);
});

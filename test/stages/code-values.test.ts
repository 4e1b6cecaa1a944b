import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeLargeStudy } from "../../fixtures/dashboard/generate.js";
import { codeValue } from "../../src/coding/records.js";
import { readCodes } from "../../src/coding/store.js";
import { runCode } from "../../src/stages/code.js";
import { openStudy, silentEffects, type StudyContext } from "../../src/stages/context.js";
import { fullCollection } from "../support/gc.js";

/**
 * agree, compare and stats share one coder's records across a pipeline run as code values (what
 * they read of each record), not as the records (issue 40): what the context holds for them must
 * stay a fraction of what the records would hold.
 */

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "colloquy-code-values-"));
  await writeLargeStudy(dir, 30_000, 100);
  // Records as the rules coder writes them (fingerprint, rationale, rule ids), not the fixture's.
  await rm(join(dir, "codes", "bales-ipa", "rules.jsonl"));
  await runCode(await openStudy(dir), { codebook: "bales-ipa", coder: "rules" }, silentEffects);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Heap (bytes) still alive after `load`, with what it returned held. */
async function heldBy<T>(load: () => Promise<T>): Promise<{ value: T; bytes: number }> {
  fullCollection();
  const before = process.memoryUsage().heapUsed;
  const value = await load();
  fullCollection();
  return { value, bytes: process.memoryUsage().heapUsed - before };
}

/** Check the records against their turns once, keeping neither: what that keeps (turns, fingerprints) is then alive before a measure. */
async function checked(context: StudyContext): Promise<void> {
  expect((await context.codes("bales-ipa", "rules", { keep: false })).length).toBeGreaterThan(0);
}

describe("the context's code values", () => {
  it("are the records cut to what the analyses read, and hold about half of what the records hold (here ~90 bytes a record against ~180)", async () => {
    // The turns and their fingerprints (what checking the records against them reads and keeps) before either is measured.
    const context = await openStudy(dir);
    await checked(context);
    // Every function measured below has run once (the code V8 compiles for it lives in the heap too).
    const warm = await openStudy(dir);
    await warm.codeValues("bales-ipa", "rules");
    await warm.codes("bales-ipa", "rules");
    const values = await heldBy(() => context.codeValues("bales-ipa", "rules"));
    const other = await openStudy(dir);
    await checked(other);
    const records = await heldBy(() => other.codes("bales-ipa", "rules"));
    expect(values.value.length).toBeGreaterThan(25_000);
    expect(values.value).toEqual(records.value.map(codeValue));
    expect(values.bytes).toBeLessThan(records.bytes * 0.6);
    // Read once and shared; read anew after the codes changed.
    expect(await context.codeValues("bales-ipa", "rules")).toBe(values.value);
    context.changed("codes");
    expect(await context.codeValues("bales-ipa", "rules")).not.toBe(values.value);
  });

  it("are cut from the records the context keeps, when it keeps them", async () => {
    const context = await openStudy(dir);
    const records = await context.codes("bales-ipa", "rules");
    const values = await context.codeValues("bales-ipa", "rules");
    // The same code lists: cut from the records held, not read again.
    expect(values.every((v, i) => v.codes === records[i].codes)).toBe(true);
  });
});

describe("reading a codes file", () => {
  it("gives records with the same codes one list", async () => {
    const records = await readCodes(dir, "bales-ipa", "rules");
    const lists = new Set(records.map((r) => r.codes));
    expect(records.length).toBeGreaterThan(25_000);
    // A codebook's few categories, not a list per record.
    expect(lists.size).toBeLessThan(100);
    // Shared, so frozen: a change in place would otherwise change every record with the same codes.
    const shared = records.find((r) => r.codes && r.codes.length > 0)!;
    expect(() => shared.codes!.push("x")).toThrow(TypeError);
  });
});

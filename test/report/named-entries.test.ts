// Codes, turn ids and codebook ids are names from input files. One named like a member of every
// object ("constructor", "valueOf", "toString", "__proto__") is an entry like any other: a count,
// a list of badges, a codebook's coders (src/util/named-entries.ts). A code "constructor" was
// counted as `function Object() { [native code] }1` in the dashboard's distributions.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { addToCount, listEntry, ownEntry, setEntry } from "../../src/util/named-entries.js";
import { sessionSchema } from "../../src/transcript/schema.js";
import type { CodeRecord } from "../../src/coding/records.js";
import { indexCodes } from "../../src/report/load.js";
import { codebookInfo } from "../../src/report/shape/common.js";
import { buildDistribution } from "../../src/report/shape/distributions.js";
import { codebookSessionPart, mergeBadges, mergeDistribution, sessionBadges } from "../../src/report/shape/parts.js";
import { listCoders } from "../../src/coding/store.js";

const NAMES = ["constructor", "valueOf", "toString", "hasOwnProperty", "__proto__"];

describe("entries named like members of every object", () => {
  it("are counted, listed and set as own entries, and written by JSON.stringify as any other", () => {
    const counts: Record<string, number> = {};
    const lists: Record<string, number[]> = {};
    for (const name of NAMES) {
      addToCount(counts, name, 2);
      addToCount(counts, name, 1);
      listEntry(lists, name).push(1, 2);
      listEntry(lists, name).push(3);
    }
    expect(Object.getPrototypeOf(counts)).toBe(Object.prototype);
    expect(JSON.parse(JSON.stringify(counts))).toStrictEqual(JSON.parse(`{${NAMES.map((n) => `"${n}":3`).join(",")}}`));
    expect(JSON.stringify(lists)).toBe(`{${NAMES.map((n) => `"${n}":[1,2,3]`).join(",")}}`);
    expect(ownEntry({}, "constructor")).toBeUndefined();
    const set: Record<string, string> = {};
    setEntry(set, "__proto__", "x");
    expect(Object.keys(set)).toEqual(["__proto__"]);
    expect(ownEntry(set, "__proto__")).toBe("x");
  });

  const session = sessionSchema.parse({
    id: "s1",
    metadata: { condition: "c" },
    participants: [
      { id: "a", name: "Ann", kind: "human" },
      { id: "b", name: "Bot", kind: "ai" },
    ],
    turns: ["t0", ...NAMES].map((id, i) => ({ id, index: i, speaker: i % 2 ? "b" : "a", text: `turn ${i}` })),
  });
  const records: CodeRecord[] = session.turns.map((t, i) => ({
    session: "s1",
    turn: t.id,
    codebook: "cb",
    codebookVersion: "1",
    coder: "rules",
    codes: [NAMES[i % NAMES.length], "op"],
    provenance: {},
    createdAt: "2026-01-01T00:00:00Z",
  }));
  const sets = [indexCodes("cb", "rules", records)];
  const info = codebookInfo("cb", null, sets);

  it("as codes: the dashboard's distributions count them, whole or merged from the sessions' parts", () => {
    const whole = buildDistribution([session], sets[0]);
    const counts = whole.byCondition[0].counts;
    for (const name of NAMES) expect(ownEntry(counts, name), name).toBe(records.filter((r) => r.codes!.includes(name)).length);
    expect(ownEntry(counts, "op")).toBe(records.length);
    const merged = mergeDistribution("cb", "rules", [codebookSessionPart(session, sets, info, 1, null)], 0);
    expect(JSON.stringify(merged)).toBe(JSON.stringify(whole));
  });

  it("as turn ids: each turn keeps its own badges, made and merged", () => {
    const badges = mergeBadges([sessionBadges(session, sets, info), sessionBadges(session, sets, info)]);
    for (const turn of session.turns) expect(ownEntry(badges, turn.id), turn.id).toHaveLength(2);
    expect(Object.keys(badges)).toEqual(session.turns.map((t) => t.id));
  });

  it("as codebook ids: the codes folder's codebook is listed with its coders", async () => {
    const study = await mkdtemp(join(tmpdir(), "colloquy-named-"));
    try {
      for (const name of ["constructor", "toString"]) {
        await mkdir(join(study, "codes", name), { recursive: true });
        await writeFile(join(study, "codes", name, "rules.jsonl"), "");
        await writeFile(join(study, "codes", name, "human%3Aann.jsonl"), "");
      }
      const coders = await listCoders(study);
      expect(ownEntry(coders, "constructor")).toEqual(["human:ann", "rules"]);
      expect(ownEntry(coders, "toString")).toEqual(["human:ann", "rules"]);
    } finally {
      await rm(study, { recursive: true, force: true });
    }
  });
});

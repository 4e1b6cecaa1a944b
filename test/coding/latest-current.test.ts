import { createHash } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CodeRecord } from "../../src/coding/records.js";
import { checkCodeCurrency } from "../../src/coding/currency.js";
import { appendCodes, readCodeHistory, readCodes } from "../../src/coding/store.js";
import { turnFingerprint } from "../../src/transcript/fingerprint.js";
import type { Session } from "../../src/transcript/schema.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "colloquy-latest-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const record = (session: string, turn: string, code: string, fingerprint?: string): CodeRecord => ({
  session,
  turn,
  ...(fingerprint === undefined ? {} : { fingerprint }),
  codebook: "bales-ipa",
  codebookVersion: "1.0.0",
  coder: "rules",
  codes: [code],
  provenance: {},
  createdAt: "2026-11-23T10:00:00.000Z",
});

/** What readCodes returned before it was made faster: a Map keyed by session and turn. */
function latestByJoinedKey(history: readonly CodeRecord[]): CodeRecord[] {
  const latest = new Map<string, CodeRecord>();
  for (const r of history) latest.set(`${r.session}\u0000${r.turn}`, r);
  return [...latest.values()];
}

describe("readCodes", () => {
  it("keeps each turn's last record at the place of its first, with sessions interleaved and ids that join alike", async () => {
    await appendCodes(dir, [
      record("s1", "t1", "a"),
      record("s2", "t1", "b"),
      record("s1", "t2", "c"),
      record("s1", "t1", "d"),
      // "s1\u0000" + "t1" must not be mistaken for another split of the same characters.
      record("s1\u0000t", "1", "e"),
      record("s2", "t1", "f"),
      record("s3", "t9", "g"),
    ]);
    const history = await readCodeHistory(dir, "bales-ipa", "rules");
    const latest = await readCodes(dir, "bales-ipa", "rules");
    expect(latest).toEqual(latestByJoinedKey(history));
    expect(latest.map((r) => `${r.session}/${r.turn}=${r.codes![0]}`)).toEqual(["s1/t1=d", "s2/t1=f", "s1/t2=c", "s1\u0000t/1=e", "s3/t9=g"]);
  });
});

describe("checkCodeCurrency", () => {
  const session = (id: string, texts: string[]): Session =>
    ({ id, turns: texts.map((text, i) => ({ id: `t${i}`, speaker: "p1", text })) }) as unknown as Session;

  it("withholds records of changed and removed turns, with records of several sessions interleaved", () => {
    const a = session("a", ["hello", "there"]);
    const b = session("b", ["yes"]);
    const print = (text: string) => turnFingerprint({ speaker: "p1", text });
    const records = [
      record("a", "t0", "x", print("hello")),
      record("b", "t0", "x", print("no")),
      record("a", "t1", "x", print("there")),
      record("zz", "t0", "x", print("gone session")),
      record("a", "t5", "x", print("hello")),
      record("b", "t0", "x"),
      record("b", "t0", "x", print("yes")),
    ];
    const { current, withheld } = checkCodeCurrency(records, [a, b]);
    expect(current).toEqual([records[0], records[2], records[3], records[5], records[6]]);
    expect(withheld).toEqual([
      { record: records[1], reason: "turn-changed" },
      { record: records[4], reason: "turn-removed" },
    ]);
  });

  it("fingerprints as three hash updates did (speaker, NUL, words with line endings normalised), odd characters included", () => {
    const threeUpdates = (speaker: string, text: string) =>
      createHash("sha256").update(speaker).update("\u0000").update(text.replace(/\r\n?/g, "\n")).digest("hex").slice(0, 16);
    const cases: [string, string][] = [
      ["p1", "a\r\nb\rc\n"],
      ["é", "日本語 🙂"],
      ["lone\ud800", "\udc00 after a lone high surrogate"],
      ["p1\u0000a", "b"],
      ["", ""],
    ];
    for (const [speaker, text] of cases) expect(turnFingerprint({ speaker, text })).toBe(threeUpdates(speaker, text));
    expect(turnFingerprint({ speaker: "p1", text: "a\r\nb" })).toBe(turnFingerprint({ speaker: "p1", text: "a\nb" }));
  });
});

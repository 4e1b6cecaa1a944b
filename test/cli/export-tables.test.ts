import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parquetMetadata, parquetReadObjects } from "hyparquet";
import Papa from "papaparse";
import { beforeAll, describe, expect, it } from "vitest";
import { appendCodes } from "../../src/coding/store.js";
import type { CodeRecord } from "../../src/coding/records.js";
import { initStudy, saveSession } from "../../src/study/study.js";
import { dictionaryCsv } from "../../src/stages/table-files.js";
import { sessionSchema } from "../../src/transcript/schema.js";
import { runCli } from "../support/cli.js";

const at = "2026-01-01T00:00:00.000Z";
const bales = (turn: string, coder: string, code: string): CodeRecord => ({
  session: "s1",
  turn,
  codebook: "bales-ipa",
  codebookVersion: "1.0.0",
  coder,
  codes: [code],
  provenance: {},
  createdAt: at,
});
const style = (turn: string, sentiment: number): CodeRecord => ({
  session: "s1",
  turn,
  codebook: "pragmatic-style",
  codebookVersion: "1.0.0",
  coder: "llm",
  scores: { sentiment, formality: 4 },
  provenance: {},
  createdAt: at,
});

let study: string;
beforeAll(async () => {
  study = join(await mkdtemp(join(tmpdir(), "colloquy-tables-")), "study");
  await initStudy(study);
  await saveSession(
    study,
    sessionSchema.parse({
      id: "s1",
      metadata: { condition: "control", run: "1" },
      participants: [
        { id: "ana", name: "Ana", kind: "human" },
        { id: "bot", name: "Bot", kind: "ai" },
      ],
      turns: [
        { id: "t0000", index: 0, speaker: "ana", text: "Shall we start, team?", start: 0 },
        { id: "t0001", index: 1, speaker: "bot", text: "Yes, I agree.", start: 4, end: 6 },
        { id: "t0002", index: 2, speaker: "ana", text: "Good", start: 9 },
      ],
    }),
  );
  await appendCodes(study, [
    bales("t0000", "human:alice", "asks-suggestion"),
    bales("t0001", "human:alice", "agrees"),
    bales("t0002", "human:alice", "agrees"),
    bales("t0001", "rules", "agrees"),
    style("t0000", 5),
    style("t0001", 6),
  ]);
});

async function csv(path: string) {
  return Papa.parse<Record<string, string>>((await readFile(path, "utf8")).trim(), { header: true }).data;
}

describe("colloquy export tables", () => {
  it("--what wide: one row per turn, a column per coder (nominal) and per coder x scale, with a data dictionary", async () => {
    const out = join(study, "..", "wide.csv");
    const run = await runCli(["export", study, "--what", "wide", "--out", out]);
    expect(run.code).toBe(0);
    const rows = await csv(out);
    expect(rows.map((r) => [r.turn, r["bales-ipa:human:alice"], r["bales-ipa:rules"], r["pragmatic-style:llm:sentiment"]])).toEqual([
      ["t0000", "asks-suggestion", "", "5"],
      ["t0001", "agrees", "agrees", "6"],
      ["t0002", "agrees", "", ""],
    ]);
    const dictionary = await csv(`${out}.dictionary.csv`);
    expect(Object.keys(dictionary[0])).toEqual(["column", "label", "type", "meaning", "allowed_values"]);
    // Every column in plain words (the glossary's), never a program's name.
    expect(dictionary.find((d) => d.column === "bales-ipa:rules")!.label).toBe("bales-ipa codes by the offline rules");
    expect(dictionary.find((d) => d.column === "bales-ipa:human:alice")!.label).toBe("bales-ipa codes by alice");
    expect(dictionary.find((d) => d.column === "pragmatic-style:llm:sentiment")!.label).toBe("sentiment ratings by the LLM coder (pragmatic-style)");
    expect(dictionary.find((d) => d.column === "speaker_id")!.label).toBe("speaker id");
    for (const d of dictionary) {
      expect(d.label, d.column).not.toMatch(/\b[a-z]+(?:[A-Z][a-z0-9]*)+\b|\b\w+_\w+\b|\w:\w/);
      // Our own words in a meaning are never a camelCase name (ids are kept as typed: below).
      expect(d.meaning, d.column).not.toMatch(/\b[a-z]+(?:[A-Z][a-z0-9]*)+\b/);
    }
    expect(dictionary.map((d) => d.column)).toEqual(Object.keys(rows[0]));
    expect(dictionary.find((d) => d.column === "pragmatic-style:llm:sentiment")).toMatchObject({ type: "integer", allowed_values: "1..7" });
    expect(dictionary.find((d) => d.column === "bales-ipa:rules")!.allowed_values).toContain("asks-suggestion");
    expect(dictionary.find((d) => d.column === "kind")).toMatchObject({ allowed_values: "human, ai, system" });
  });

  it("the dictionary keeps a researcher's own ids as typed, camelCase ones included", () => {
    const meaning = "rating coder human:janeDoe gave the turn on scale selfDisclosure of trustCodebook";
    const text = dictionaryCsv({ columns: [{ name: "trustCodebook:human:janeDoe:selfDisclosure", type: "integer", meaning, allowed: "1..7" }], rows: [] });
    expect(text).toContain(meaning);
  });

  it("--what participants and sessions: talk, codes per category and mean ratings", async () => {
    const people = join(study, "..", "participants.csv");
    expect((await runCli(["export", study, "--what", "participants", "--out", people])).code).toBe(0);
    const rows = await csv(people);
    const ana = rows.find((r) => r.name === "Ana")!;
    expect(ana).toMatchObject({
      session: "s1",
      kind: "human",
      turns: "2",
      words: "5",
      "bales-ipa:human:alice:agrees": "1",
      "bales-ipa:human:alice:asks-suggestion": "1",
      // The rule coder coded none of Ana's turns: not coded (empty), not "coded, never agrees" (0).
      "bales-ipa:rules:agrees": "",
      "pragmatic-style:llm:sentiment:mean": "5",
    });
    expect(Number(ana.share_of_turns)).toBeCloseTo(2 / 3);
    expect(rows.find((r) => r.name === "Bot")).toMatchObject({
      turns: "1",
      words: "3",
      "bales-ipa:rules:agrees": "1",
      // Alice coded Bot's turn, never as asks-suggestion.
      "bales-ipa:human:alice:asks-suggestion": "0",
      "pragmatic-style:llm:sentiment:mean": "6",
    });
    const peopleDictionary = await csv(`${people}.dictionary.csv`);
    expect(peopleDictionary.map((d) => d.column)).toEqual(Object.keys(rows[0]));
    expect(peopleDictionary.find((d) => d.column === "share_of_turns")!.label).toBe("share of turns");
    expect(peopleDictionary.find((d) => d.column === "pragmatic-style:llm:sentiment:mean")!.label).toBe(
      "mean sentiment rating by the LLM coder (pragmatic-style)",
    );
    for (const d of peopleDictionary) expect(d.label, d.column).not.toMatch(/\b[a-z]+(?:[A-Z][a-z0-9]*)+\b|\b\w+_\w+\b|\w:\w/);

    const sessions = join(study, "..", "sessions.csv");
    expect((await runCli(["export", study, "--what", "sessions", "--out", sessions])).code).toBe(0);
    const [s1] = await csv(sessions);
    expect(s1).toMatchObject({
      session: "s1",
      turns: "3",
      participants: "2",
      humans: "1",
      ais: "1",
      words: "8",
      duration_s: "9",
      "bales-ipa:human:alice:agrees": "2",
      "pragmatic-style:llm:sentiment:mean": "5.5",
    });
  });

  it("--format parquet writes typed columns that a Parquet reader reads back (empty cells as nulls)", async () => {
    for (const what of ["codes", "wide", "participants"]) {
      const out = join(study, "..", `${what}.parquet`);
      const run = await runCli(["export", study, "--what", what, "--format", "parquet", "--out", out]);
      expect(run.code).toBe(0);
      const bytes = await readFile(out);
      const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
      const rows = await parquetReadObjects({ file });
      const jsonl = (await runCli(["export", study, "--what", what, "--format", "jsonl"])).stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(rows).toHaveLength(jsonl.length);
      const dictionary = await csv(`${out}.dictionary.csv`);
      expect(
        parquetMetadata(file)
          .schema.slice(1)
          .map((s) => s.name),
      ).toEqual(dictionary.map((d) => d.column));
      if (what === "wide") {
        expect(rows.map((r) => r["pragmatic-style:llm:sentiment"])).toEqual([5, 6, null]);
        // A text gap is null, as in the README; time is text in Parquet, JSONL and the dictionary alike.
        expect(rows.map((r) => r["bales-ipa:rules"])).toEqual([null, "agrees", null]);
        expect(rows.map((r) => r.time)).toEqual(["0", "4", "9"]);
        expect(jsonl.map((r) => r.time)).toEqual(["0", "4", "9"]);
        expect(dictionary.find((d) => d.column === "time")?.type).toBe("string");
        expect(rows.map((r) => r.text)).toEqual(["Shall we start, team?", "Yes, I agree.", "Good"]);
        expect(rows[0].index).toBe(0);
      }
      if (what === "codes") expect(rows.filter((r) => r.coder === "llm").map((r) => r.score_sentiment)).toEqual([5, 6]);
      if (what === "participants")
        expect(rows.map((r) => [r.name, r["bales-ipa:rules:agrees"], r["bales-ipa:human:alice:asks-suggestion"]])).toEqual([
          ["Ana", null, 1],
          ["Bot", 1, 0],
        ]);
    }
  });
});

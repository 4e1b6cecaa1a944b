import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Papa from "papaparse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadSessions } from "../../src/study/study.js";
import { runCli } from "../support/cli.js";

const fixtures = fileURLToPath(new URL("../../fixtures/transcripts/", import.meta.url));

describe("colloquy export", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "colloquy-export-"));
    await runCli([
      "import",
      join(fixtures, "csv/chat-log.csv"),
      join(fixtures, "csv/semicolon-bom.csv"),
      "--study",
      dir,
      "--code-column",
      "ipa_code=alice",
      "--codebook",
      "bales-ipa",
    ]);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("writes one CSV row per turn whose text round-trips exactly (quotes, delimiters, line breaks, accents)", async () => {
    const out = join(dir, "turns.csv");
    const run = await runCli(["export", dir, "--format", "csv", "--out", out, "--excel"]);
    expect(run.code).toBe(0);
    const bytes = await readFile(out);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const rows = Papa.parse<Record<string, string>>(bytes.toString("utf8").slice(1).trim(), { header: true }).data;
    const sessions = await loadSessions(dir);
    const turns = sessions.flatMap((s) => s.turns.map((t) => ({ session: s.id, text: t.text, index: String(t.index) })));
    expect(rows.map((r) => ({ session: r.session, text: r.text, index: r.index }))).toEqual(turns);
    expect(rows.some((r) => r.text!.includes('"night sky"') && r.text!.includes("\n"))).toBe(true);
    expect(rows.some((r) => r.speaker === "Anna Müller")).toBe(true);
    const prov = JSON.parse(await readFile(`${out}.provenance.json`, "utf8"));
    expect(prov).toMatchObject({ tool: "colloquy", command: "export", rows: turns.length });
  });

  it("adds one column per codebook and coder with --codes", async () => {
    const run = await runCli(["export", dir, "--codes"]);
    const rows = Papa.parse<Record<string, string>>(run.stdout.trim(), { header: true }).data;
    expect(rows.map((r) => r["bales-ipa:human:alice"])).toEqual([
      "",
      "",
      "shows-solidarity",
      "gives-suggestion",
      "disagrees",
      "asks-orientation",
      "gives-orientation",
      "",
    ]);
  });

  it("writes JSONL rows", async () => {
    const run = await runCli(["export", dir, "--format", "jsonl"]);
    const rows = run.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(rows).toHaveLength(8);
    // Sessions sort by condition (none first), run, id.
    expect(rows[0].session).toBe("semicolon-bom");
    expect(rows[2]).toMatchObject({
      session: "control-1-chat-log-1",
      condition: "control",
      run: "1",
      turn: "t0000",
      index: 0,
      speaker: "Alice Smith",
      kind: "human",
      // As the data dictionary types it (and CSV and Parquet write it): text.
      time: "0",
      type: "message",
    });
  });

  it("writes code records as CSV with --what codes", async () => {
    const run = await runCli(["export", dir, "--what", "codes"]);
    const rows = Papa.parse<Record<string, string>>(run.stdout.trim(), { header: true }).data;
    expect(rows).toHaveLength(5);
    expect(rows[0]).toMatchObject({
      session: "control-1-chat-log-1",
      condition: "control",
      turn: "t0000",
      codebook: "bales-ipa",
      coder: "human:alice",
      codes: "shows-solidarity",
    });
  });

  it("rejects unknown formats", async () => {
    const run = await runCli(["export", dir, "--format", "xlsx"]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/--format "xlsx": expected csv, jsonl, parquet, qdpx, qdc/);
  });
});

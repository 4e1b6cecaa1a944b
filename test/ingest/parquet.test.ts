// Importing Parquet: the turns table `colloquy export --format parquet` writes comes back as the
// same turns, and a conversations table written by another tool (session_id / role / content,
// several row groups, sessions interleaved across them) is read one row group at a time with
// every cell kept. Files are written here, by the export command and by hyparquet-writer.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parquetMetadata } from "hyparquet";
import { parquetWriteBuffer } from "hyparquet-writer";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { importFiles } from "../../src/ingest/registry.js";
import { initStudy, loadSessions, saveSession } from "../../src/study/study.js";
import { sessionSchema } from "../../src/transcript/schema.js";
import { runCli } from "../support/cli.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "colloquy-parquet-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

type Column = {
  name: string;
  type: "STRING" | "INT32" | "DOUBLE" | "FLOAT" | "TIMESTAMP" | "BOOLEAN" | "BYTE_ARRAY";
  data: (string | number | boolean | Uint8Array | Date | null)[];
};
async function writeParquet(name: string, columns: Column[], rowGroupSize?: number): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, new Uint8Array(parquetWriteBuffer({ columnData: columns.map((c) => ({ ...c, nullable: true })), rowGroupSize })));
  return path;
}

describe("colloquy import of a Parquet file", () => {
  it("reads back the turns table that colloquy export --format parquet wrote", async () => {
    const source = join(dir, "source");
    await initStudy(source);
    await saveSession(
      source,
      sessionSchema.parse({
        id: "s1",
        participants: [
          { id: "ava", name: "Ava", kind: "human" },
          { id: "nova", name: "Nova", kind: "ai" },
        ],
        turns: [
          { id: "t0001", index: 0, speaker: "ava", text: 'Shall we start, Nova? Ünïcode, "quotes", and a\nline break.' },
          { id: "t0002", index: 1, speaker: "nova", text: "Yes — let's begin with the budget." },
          { id: "t0003", index: 2, speaker: "ava", text: "  leading spaces kept  " },
        ],
      }),
    );
    const file = join(dir, "turns.parquet");
    expect((await runCli(["export", source, "--what", "turns", "--format", "parquet", "--out", file])).code).toBe(0);

    const target = join(dir, "target");
    const run = await runCli(["import", file, "--study", target]);
    expect(run.code, run.stderr).toBe(0);
    const [session] = await loadSessions(target);
    expect(session.turns.map((t) => [session.participants.find((p) => p.id === t.speaker)?.name, t.text])).toEqual([
      ["Ava", 'Shall we start, Nova? Ünïcode, "quotes", and a\nline break.'],
      ["Nova", "Yes — let's begin with the budget."],
      ["Ava", "  leading spaces kept  "],
    ]);
    expect(session.participants.find((p) => p.name === "Nova")?.kind).toBe("ai");
    expect(session.metadata.source).toMatchObject({ format: "parquet" });
  });

  it("reads a conversations table row group by row group, sessions interleaved, every other cell kept", async () => {
    const rows = 10;
    const file = await writeParquet(
      "chats.parquet",
      [
        { name: "conversation_id", type: "STRING", data: Array.from({ length: rows }, (_, i) => `c${i % 3}`) },
        { name: "role", type: "STRING", data: Array.from({ length: rows }, (_, i) => (i % 2 ? "assistant" : "user")) },
        { name: "content", type: "STRING", data: Array.from({ length: rows }, (_, i) => `message ${i}`) },
        { name: "toxicity", type: "DOUBLE", data: Array.from({ length: rows }, (_, i) => (i === 4 ? null : i / 10)) },
      ],
      3,
    );
    const bytes = await readFile(file);
    expect(parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)).row_groups).toHaveLength(4);
    // Chat logs name the speaker by role: mapped as for CSV.
    const [result] = await importFiles([file], { columns: { speaker: "role" } });
    expect(result.error).toBeUndefined();
    expect(result.format).toBe("parquet");
    const sessions = result.result!.sessions;
    expect(sessions.map((s) => s.metadata?.sessionKey)).toEqual(["c0", "c1", "c2"]);
    const c1 = sessions[1];
    expect(c1.turns.map((t) => t.text)).toEqual(["message 1", "message 4", "message 7"]);
    // Row numbers from 1, across row groups; other columns in the turn's metadata (a null is no cell).
    expect(c1.turns.map((t) => t.metadata)).toEqual([{ row: 2, toxicity: "0.1" }, { row: 5 }, { row: 8, toxicity: "0.7" }]);
    expect(sessions.flatMap((s) => s.turns).length).toBe(rows);
  });

  it("names the file and the missing column", async () => {
    const file = await writeParquet("no-text.parquet", [
      { name: "session", type: "STRING", data: ["a", "a"] },
      { name: "speaker", type: "STRING", data: ["Ava", "Nova"] },
    ]);
    const [result] = await importFiles([file]);
    expect(result.error).toBe(
      `${file}: columns: no text column (header: session, speaker); expected a column named text/message/content/utterance or --columns text=<column>`,
    );
    const run = await runCli(["import", file, "--study", join(dir, "study")]);
    expect(run.code).not.toBe(0);
    expect(run.stderr + run.stdout).toContain(`${file}: columns: no text column`);
  });

  it("refuses text whose bytes are not UTF-8 instead of replacing them, annotated as text or not", async () => {
    const bad = new Uint8Array([0x68, 0x69, 0xff, 0xfe, 0x21]); // "hi", two bytes UTF-8 never has, "!"
    for (const type of ["STRING", "BYTE_ARRAY"] as const) {
      const file = await writeParquet(`bad-${type}.parquet`, [
        { name: "speaker", type: "STRING", data: ["Ava", "Ben"] },
        { name: "text", type, data: [new TextEncoder().encode("fine"), bad] },
      ]);
      const [result] = await importFiles([file]);
      expect(result.result, type).toBeUndefined();
      expect(result.error, type).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}: rows? [0-9-]+.*not UTF-8`));
    }
  });

  it("keeps a 32-bit float as it was written and a timestamp's microseconds", async () => {
    const file = await writeParquet("typed.parquet", [
      { name: "speaker", type: "STRING", data: ["Ava", "Ben"] },
      { name: "text", type: "STRING", data: ["one", "two"] },
      { name: "score", type: "FLOAT", data: [0.1, 2.5] },
      { name: "sent", type: "TIMESTAMP", data: [new Date("2024-05-01T10:00:00.123Z"), null] },
    ]);
    const [result] = await importFiles([file]);
    expect(result.error).toBeUndefined();
    const turns = result.result!.sessions[0].turns;
    expect(turns.map((t) => t.metadata?.score)).toEqual(["0.1", "2.5"]);
    expect(turns[0].metadata?.sent).toMatch(/^2024-05-01T10:00:00\.123/);

    // Microseconds (INT64 TIMESTAMP_MICROS, as pandas and Spark write): every digit kept.
    const micros = join(dir, "micros.parquet");
    const text = (name: string) => ({ name, type: "BYTE_ARRAY" as const, converted_type: "UTF8" as const, repetition_type: "OPTIONAL" as const });
    const buffer = parquetWriteBuffer({
      columnData: [
        { name: "speaker", data: ["Ava"], nullable: true },
        { name: "text", data: ["one"], nullable: true },
        { name: "sent", data: [1714557600123456n], nullable: true },
      ],
      schema: [
        { name: "root", num_children: 3 },
        text("speaker"),
        text("text"),
        { name: "sent", type: "INT64", converted_type: "TIMESTAMP_MICROS", repetition_type: "OPTIONAL" },
      ],
    });
    await writeFile(micros, new Uint8Array(buffer));
    const [read] = await importFiles([micros]);
    expect(read.result!.sessions[0].turns[0].metadata?.sent).toBe("2024-05-01T10:00:00.123456Z");
  });

  it("names the row of an empty speaker cell, and a file that is not Parquet", async () => {
    const file = await writeParquet("gap.parquet", [
      { name: "speaker", type: "STRING", data: ["Ava", null, "Ava"] },
      { name: "text", type: "STRING", data: ["one", "two", "three"] },
    ]);
    expect((await importFiles([file]))[0].error).toBe(`${file}: row 2: empty speaker cell (column "speaker"); expected every row to name its speaker`);
    const fake = join(dir, "fake.parquet");
    await writeFile(fake, "speaker,text\nAva,hello\n");
    expect((await importFiles([fake]))[0].error).toMatch(new RegExp(`^${fake.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}: not a readable Parquet file \\(`));
  });
});

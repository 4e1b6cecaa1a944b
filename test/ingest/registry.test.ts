import { cp, mkdtemp, rm, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { detectFormat, FormatError, importEach, importerByName, importers, importFiles } from "../../src/ingest/registry.js";
import type { Importer } from "../../src/ingest/types.js";

const fixtures = fileURLToPath(new URL("../../fixtures/transcripts/", import.meta.url));
const head = (rel: string) => readFileSync(join(fixtures, rel), "utf8").replace(/^\uFEFF/, "");

describe("format detection", () => {
  it.each([
    ["slack-paste/dataset/flat/1/run-1.md", "slack-paste"],
    ["slack-paste/edge/compact.md", "slack-paste"],
    ["slack-paste/edge/crlf-bom.md", "slack-paste"],
    ["csv/chat-log.csv", "csv"],
    ["csv/semicolon-bom.csv", "csv"],
    ["csv/interview.tsv", "csv"],
    ["plain/interview.txt", "plain"],
    ["plain/otter.txt", "plain"],
    ["plain/rev.txt", "plain"],
    ["plain/timed.txt", "plain"],
    ["vtt/teams.vtt", "vtt"],
    ["vtt/zoom.vtt", "vtt"],
    ["srt/meeting.srt", "srt"],
    ["plain/otter-markdown-bold.md", "plain"],
    ["plain/descript-markdown.md", "plain"],
    ["vtt/teams-short-timings.vtt", "vtt"],
    ["vtt/youtube-auto-captions.vtt", "vtt"],
    ["srt/entities-and-markup.srt", "srt"],
    ["srt/cr-line-endings.srt", "srt"],
  ])("%s is %s", (rel, format) => {
    expect(detectFormat(rel, head(rel)).name).toBe(format);
  });

  it("detects by content even under a misleading extension", () => {
    expect(detectFormat("captions.txt", head("vtt/teams.vtt")).name).toBe("vtt");
    expect(detectFormat("paste.txt", head("slack-paste/dataset/flat/1/run-1.md")).name).toBe("slack-paste");
  });

  it("says which formats exist and suggests --format when nothing matches", () => {
    expect(() => detectFormat("photo.png", "\u0089PNG")).toThrow(
      /photo\.png: format not recognised.*known formats: slack-paste, csv, vtt, srt, sbv, whatsapp, zoom-chat, cha, textgrid, plain.*--format/,
    );
  });

  it("refuses to guess between two equally likely formats", () => {
    const fake = (name: string): Importer => ({
      name,
      description: "",
      extensions: [],
      input: "file",
      detect: () => 0.5,
      parse: async () => ({ sessions: [], codes: [], warnings: [] }),
    });
    expect(() => detectFormat("x", "y", [fake("a"), fake("b")])).toThrow(/could be a or b .*--format/);
  });

  it("a throwing detect() does not break detection", () => {
    const broken: Importer = {
      name: "broken",
      description: "",
      extensions: [],
      input: "file",
      detect: () => {
        throw new Error("boom");
      },
      parse: async () => ({ sessions: [], codes: [], warnings: [] }),
    };
    expect(detectFormat("x.csv", "speaker,text\n", [broken, importerByName("csv")]).name).toBe("csv");
  });

  it("has unique format names and rejects unknown --format", () => {
    expect(new Set(importers.map((i) => i.name)).size).toBe(importers.length);
    expect(() => importerByName("docx")).toThrow(FormatError);
  });
});

describe("importFiles", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "colloquy-registry-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("walks folders, takes condition/run from --path-pattern and records the source", async () => {
    await cp(join(fixtures, "slack-paste/dataset"), join(dir, "dataset"), { recursive: true });
    const results = await importFiles([join(dir, "dataset")], { pathPattern: "{condition}/{run}/*" });
    expect(results.map((r) => [r.path.slice(dir.length + 1), r.format, r.error])).toEqual([
      ["dataset/flat/1/run-1.md", "slack-paste", undefined],
      ["dataset/flat/2/run-2.md", "slack-paste", undefined],
      ["dataset/hierarchical/1/run-1.md", "slack-paste", undefined],
      ["dataset/hierarchical/2/run-2.md", "slack-paste", undefined],
    ]);
    const meta = results.map((r) => r.result!.sessions[0]!.metadata!);
    expect(meta.map((m) => [m.condition, m.run])).toEqual([
      ["flat", "1"],
      ["flat", "2"],
      ["hierarchical", "1"],
      ["hierarchical", "2"],
    ]);
    expect(meta[0]!.source).toEqual({ file: join(dir, "dataset/flat/1/run-1.md"), format: "slack-paste" });
  });

  it("lets --condition and --run win and warns when a path does not fit the pattern", async () => {
    const file = join(dir, "one.md");
    await writeFile(file, head("slack-paste/dataset/flat/2/run-2.md"));
    const [r] = await importFiles([file], { pathPattern: "{condition}/{run}/{x}/*", condition: "pilot", run: "7" });
    expect(r!.result!.sessions[0]!.metadata).toMatchObject({ condition: "pilot", run: "7" });
    expect(r!.result!.warnings).toEqual([expect.stringMatching(/does not match --path-pattern/)]);
  });

  it("reports a broken file and still imports the others; skips non-transcript files inside folders", async () => {
    await writeFile(join(dir, "good.csv"), "speaker,text\nAnn,hello\n");
    await writeFile(join(dir, "bad.csv"), "speaker,text\nAnn\n");
    await writeFile(join(dir, "notes.md"), "no speakers in here\n");
    await writeFile(join(dir, "figure.png"), "\u0089PNG\r\n");
    await writeFile(join(dir, ".hidden.csv"), "ignored");
    const results = await importFiles([dir]);
    const byName = Object.fromEntries(results.map((r) => [r.path.slice(dir.length + 1), r]));
    expect(Object.keys(byName).sort()).toEqual(["bad.csv", "figure.png", "good.csv", "notes.md"]);
    expect(byName["good.csv"]!.result!.sessions[0]!.turns[0]!.text).toBe("hello");
    expect(byName["bad.csv"]!.error).toMatch(/bad\.csv:2: row has 1 field/);
    expect(byName["notes.md"]!.error).toMatch(/format not recognised/);
    expect(byName["notes.md"]!.skipped).toBeUndefined();
    expect(byName["figure.png"]!.skipped).toBe(true);
  });

  it("reports missing paths and empty folders as errors", async () => {
    await mkdir(join(dir, "empty"));
    const results = await importFiles([join(dir, "nope.md"), join(dir, "empty")]);
    expect(results.map((r) => r.error)).toEqual([expect.stringMatching(/nope\.md: cannot read \(ENOENT\)/), expect.stringMatching(/empty folder/)]);
  });

  it("forces a format with --format and turns its ImportError into a per-file error", async () => {
    const file = join(dir, "talk.txt");
    await writeFile(file, "Ann: hi\nBob: hello\n");
    expect((await importFiles([file], { format: "plain" }))[0]!.result!.sessions[0]!.turns).toHaveLength(2);
    expect((await importFiles([file], { format: "vtt" }))[0]!.error).toMatch(/talk\.txt:1: .*expected "WEBVTT"/);
  });

  it("importEach yields one file at a time and reads the next file only when asked", async () => {
    await writeFile(join(dir, "1.csv"), "speaker,text\nAnn,hello\n");
    await writeFile(join(dir, "2.csv"), "speaker,text\nBob,first version\n");
    const stream = importEach([dir]);
    const first = await stream.next();
    expect(first.value!.result!.sessions[0]!.turns[0]!.text).toBe("hello");
    // The second file has not been parsed yet: what it holds now is what the stream yields.
    await writeFile(join(dir, "2.csv"), "speaker,text\nBob,changed after the first file was yielded\n");
    const second = await stream.next();
    expect(second.value!.result!.sessions[0]!.turns[0]!.text).toBe("changed after the first file was yielded");
    expect((await stream.next()).done).toBe(true);
  });

  it("hints at --agents when no speaker is an AI but a name looks like an assistant (plain, VTT)", async () => {
    const results = await importFiles([join(fixtures, "plain/timed.txt"), join(fixtures, "vtt/teams.vtt"), join(fixtures, "plain/otter.txt")]);
    expect(results.map((r) => r.result!.warnings.filter((w) => /--agents/.test(w)))).toEqual([
      [expect.stringMatching(/timed\.txt: no speaker is marked as an AI, but "ChatGPT" looks like an assistant; if so, import again with --agents "ChatGPT"/)],
      [expect.stringMatching(/teams\.vtt: .*"Copilot" looks like an assistant.*--agents "Copilot"/)],
      [],
    ]);
    // Named with --agents, or any AI in the session: no hint.
    expect((await importFiles([join(fixtures, "plain/timed.txt")], { agents: ["ChatGPT"] }))[0]!.result!.warnings).toEqual([]);
    const named = join(dir, "names.txt");
    await writeFile(
      named,
      "Research Assistant: hi\nAi Tanaka: hello\nGPT-4o: hey\nResearch Assistant: so\nAi Tanaka: yes\nGPT-4o: ok\nAI Moderator: fine\nAI Moderator: go\n",
    );
    expect((await importFiles([named]))[0]!.result!.warnings).toEqual([
      expect.stringMatching(
        /"Research Assistant", "GPT-4o", "AI Moderator" look like an assistant; if so, import again with --agents "Research Assistant,GPT-4o,AI Moderator"/,
      ),
    ]);
  });

  it("importEach throws a bad --format or --path-pattern before reading any file", async () => {
    await expect(importEach([join(dir, "nope.md")], { format: "docx" }).next()).rejects.toThrow(FormatError);
    await expect(importFiles([join(dir, "nope.md")], { pathPattern: "*/*" })).rejects.toThrow(/captures nothing/);
  });

  it("hands a Slack export folder to the folder importer as a whole", async () => {
    // Each export folder is one input (its channel folders and daily files are not imported one by one).
    const results = await importFiles([join(fixtures, "slack-export")]);
    expect(results.map((r) => r.format)).toEqual(Array(6).fill("slack-export"));
    expect(results.map((r) => r.path.split(/[\\/]/).pop()).sort()).toEqual([
      "bot-add-by-human",
      "bot-named-by-raw-id",
      "bot-text-in-attachments",
      "deleted-thread-parent",
      "file-comment-without-user",
      "workspace",
    ]);
  });
});

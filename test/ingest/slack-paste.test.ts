import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { parseSlackPaste, slackPasteImporter } from "../../src/ingest/formats/slack-paste.js";
import { textInput } from "../../src/ingest/input.js";
import { ImportError } from "../../src/ingest/types.js";
import { assertNothingDropped } from "../support/coverage.js";

const fixture = (rel: string) => new URL(`../../fixtures/transcripts/slack-paste/${rel}`, import.meta.url);
const read = (rel: string) => readFile(fixture(rel), "utf8");

/** Markup the format defines: header lines, time lines and Slack's divider (all kept in metadata/turn fields). */
const slackMarkup = [/^\s*New\s*$/, /^\s*(APP\s+)?\d{1,2}:\d{2}(\s*[AP]M)?\s*$/, /^\S.*\([^()]*\)(\s+(APP\s+)?\d{1,2}:\d{2}\s*[AP]M.*)?$/];

describe("slack-paste importer", () => {
  it("reads headers, APP markers, continuations, dividers, files and the preamble of a real-looking run", async () => {
    const text = await read("dataset/hierarchical/1/run-1.md");
    const { sessions, warnings } = parseSlackPaste("run-1.md", text);
    expect(warnings).toEqual([]);
    const [s] = sessions;
    expect(s!.metadata!.preamble).toBe(
      "Condition: hierarchical (CEO delegates to Product Manager and Developer)\nModel: gpt-4o, temperature 0.7\nPrompt settings: agents reply within 2 minutes",
    );
    expect(s!.participants).toEqual([
      { id: "maria-lopez", name: "Maria Lopez", role: "Client", kind: "human" },
      { id: "ceo", name: "CEO", role: "AI Agent", kind: "ai" },
      { id: "product-manager", name: "Product Manager", role: "AI Agent", kind: "ai" },
      { id: "developer", name: "Developer", role: "AI Agent", kind: "ai" },
    ]);
    expect(s!.turns.map((t) => [t.speaker, t.timestamp, t.start])).toEqual([
      ["maria-lopez", "10:02 AM", 0],
      ["ceo", "10:02 AM", 0],
      ["product-manager", "10:03 AM", 60],
      ["maria-lopez", "10:05 AM", 180],
      ["developer", "10:07 AM", 300],
    ]);
    // "Great idea (really) …" stays body text; the "New" divider is dropped and its line recorded.
    expect(s!.turns[2]!.text).toContain("3. Great idea (really) to include pickup times?");
    expect(s!.turns[2]!.text).not.toMatch(/\nNew$/);
    expect(s!.metadata!.slackDividerLines).toEqual([17]);
    // The continuation stays in the turn, visible, with its time and offset in metadata.
    const maria = s!.turns[3]!;
    expect(maria.text).toBe("About 12 cakes. Online payment would be nice but not required.\nOh, and pickup times are a must.");
    expect(maria.metadata!.continuations).toEqual([{ line: 21, timestamp: "10:06", start: 240, offset: 63 }]);
    expect(maria.text.slice(63)).toBe("Oh, and pickup times are a must.");
    // File content kept verbatim, including indentation; the turn is marked.
    const dev = s!.turns[4]!;
    expect(dev.text).toContain('<File: order-form.html>\n<form action="/order" method="post">\n  <label>Cake</label>\n</form>');
    expect(dev.metadata!.files).toEqual(["order-form.html"]);
    expect(dev.metadata!.app).toBe(true);
    assertNothingDropped(text, { sessions, codes: [], warnings }, slackMarkup);
  });

  it("splits continuations into their own turns with --split-continuations", async () => {
    const { sessions } = parseSlackPaste("run-1.md", await read("dataset/hierarchical/1/run-1.md"), { splitContinuations: true });
    const turns = sessions[0]!.turns;
    expect(turns).toHaveLength(6);
    expect(turns[3]!.text).toBe("About 12 cakes. Online payment would be nice but not required.");
    expect(turns[4]).toMatchObject({ speaker: "maria-lopez", text: "Oh, and pickup times are a must.", timestamp: "10:06", start: 240 });
    expect(turns[4]!.metadata!.continuationOf).toBe("t0003");
    expect(turns.map((t) => t.index)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("orders times across midnight and across noon", async () => {
    const night = parseSlackPaste("run-2.md", await read("dataset/hierarchical/2/run-2.md")).sessions[0]!;
    expect(night.turns.map((t) => t.start)).toEqual([0, 60, 180, 300]);
    const noon = parseSlackPaste("run-2.md", await read("dataset/flat/2/run-2.md")).sessions[0]!;
    expect(noon.turns.map((t) => t.start)).toEqual([0, 60, 25 * 60, 27 * 60]);
  });

  it("marks a turn that starts with a shared file as type file", async () => {
    const text = "Ann (Client)\n  1:00 PM\n<File: brief.pdf>\nBudget: 5k\nBot (AI)\nAPP  1:01 PM\nThanks";
    const { sessions } = parseSlackPaste("x.md", text);
    expect(sessions[0]!.turns[0]).toMatchObject({ type: "file", text: "<File: brief.pdf>\nBudget: 5k", metadata: { files: ["brief.pdf"] } });
    expect(sessions[0]!.turns[1]!.type).toBe("message");
  });

  it("handles CRLF line ends and a BOM", async () => {
    const text = await read("edge/crlf-bom.md");
    expect(text.charCodeAt(0)).toBe(0xfeff);
    const { sessions } = parseSlackPaste("crlf-bom.md", text);
    const s = sessions[0]!;
    expect(s.metadata!.preamble).toBe("Study notes: pilot session, exported from Slack");
    expect(s.participants.map((p) => p.name)).toEqual(["Lee Min-jun", "CEO"]);
    expect(s.turns.map((t) => t.text)).toEqual(["Hello there", "Hi Lee!"]);
    expect(s.turns.every((t) => !t.text.includes("\r"))).toBe(true);
  });

  it("reads the compact one-line form and imports its trailing label as a transcript code", async () => {
    const text = await read("edge/compact.md");
    const result = parseSlackPaste("compact.md", text);
    const s = result.sessions[0]!;
    expect(s.turns.map((t) => [t.speaker, t.timestamp, t.text])).toEqual([
      ["maria-lopez", "6:35 PM", "I think the blue version looks more professional."],
      ["ceo", "6:36 PM", "Agreed, blue it is."],
      ["product-manager", "6:37 PM", "What do you think about the font?"],
      ["maria-lopez", "6:40 PM", "Hmm, not sure."],
    ]);
    expect(s.participants.find((p) => p.id === "ceo")!.kind).toBe("ai");
    expect(result.codes).toEqual([
      { session: "compact", turn: "t0000", coder: "human:transcript", label: "Gives opinion" },
      { session: "compact", turn: "t0001", coder: "human:transcript", label: "Agrees" },
      { session: "compact", turn: "t0002", coder: "human:transcript", label: "8" },
      { session: "compact", turn: "t0003", coder: "human:transcript", label: "Rambles" },
    ]);
    assertNothingDropped(text, result, slackMarkup);
  });

  it("does not take a parenthesised body line for a header unless a time line confirms it", () => {
    const text = "Bo (Client)\n  9:00 AM\nGreat idea (really)\nLet's do it (today)\n9:02\nOK (done)";
    const s = parseSlackPaste("x.md", text).sessions[0]!;
    expect(s.turns).toHaveLength(1);
    expect(s.turns[0]!.text).toBe("Great idea (really)\nLet's do it (today)\nOK (done)");
  });

  it("treats names listed in --agents as AI even without APP", () => {
    const s = parseSlackPaste("x.md", "Helper (Assistant)\n  9:00 AM\nHi", { agents: ["helper"] }).sessions[0]!;
    expect(s.participants[0]!.kind).toBe("ai");
  });

  it("keeps a speaker header with an empty body as an empty turn (one turn per header)", () => {
    const s = parseSlackPaste("x.md", "A (X)\n  9:00 AM\nB (Y)\nAPP  9:01 AM\nhello").sessions[0]!;
    expect(s.turns.map((t) => t.text)).toEqual(["", "hello"]);
  });

  it("throws an ImportError naming the file when there is no header", async () => {
    expect(() => parseSlackPaste("notes.md", "just some notes\nno speakers")).toThrow(ImportError);
    expect(() => parseSlackPaste("notes.md", "")).toThrow(/notes\.md:1: no Slack speaker header found/);
  });

  it("streams through the Importer interface with the same result as the in-memory parser", async () => {
    const text = await read("dataset/flat/1/run-1.md");
    const viaImporter = await slackPasteImporter.parse(textInput("run-1.md", text), {});
    expect(viaImporter).toEqual(parseSlackPaste("run-1.md", text));
  });

  it("detects Slack pastes and not plain prose", async () => {
    expect(slackPasteImporter.detect("run-1.md", await read("dataset/flat/1/run-1.md"))).toBeGreaterThan(0.8);
    expect(slackPasteImporter.detect("notes.md", "Alice: hi\nBob (maybe): hello")).toBe(0);
  });
});

describe("slack-paste headers without a role", () => {
  it("accepts a bare bot name only when an APP time line follows", () => {
    const text = "Ann (Client)\n  9:00 AM\nHello\nSure Thing\n  9:01 AM\nCEO\nAPP  9:02 AM\nWelcome";
    const s = parseSlackPaste("x.md", text).sessions[0]!;
    expect(s.participants).toEqual([
      { id: "ann", name: "Ann", role: "Client", kind: "human" },
      { id: "ceo", name: "CEO", kind: "ai" },
    ]);
    // "Sure Thing" + an indented time is Ann's text followed by a further (empty) post of hers, not a new speaker.
    expect(s.turns.map((t) => t.text)).toEqual(["Hello\nSure Thing\n", "Welcome"]);
    expect(s.turns[0]!.metadata!.continuations).toEqual([{ line: 5, timestamp: "9:01 AM", start: 60, offset: 17 }]);
  });
});

describe("slack-paste compact form", () => {
  it("keeps message text after the time in the turn when it is not a code label", () => {
    const result = parseSlackPaste("x.md", "Ann (Client) 6:35 PM Hi team, we need a logo.\nBlue, ideally.\nBot (AI) APP 6:36 PM Asks for opinion\nWhich blue?");
    expect(result.sessions[0]!.turns.map((t) => t.text)).toEqual(["Hi team, we need a logo.\nBlue, ideally.", "Which blue?"]);
    expect(result.codes.map((c) => c.label)).toEqual(["Asks for opinion"]);
  });
});

import { describe, expect, it } from "vitest";
import { teamsDocxImporter } from "../../src/ingest/formats/teams-docx.js";
import { importFiles } from "../../src/ingest/registry.js";
import { ImportError, type ImportInput } from "../../src/ingest/types.js";
import { makeDocx } from "../support/docx.js";
import { fixture, importFixture, speakerName } from "./json/helpers.js";

/** An input over docx bytes in memory. */
const bytesInput = (path: string, bytes: Uint8Array): ImportInput => ({
  path,
  kind: "file",
  readText: async () => "",
  lines: async function* () {},
  readBytes: async () => bytes,
});

describe("teams-docx importer", () => {
  it("newer shape: `Name<tab>0:03` headers, multi-paragraph turns, line breaks, transcription notices, preamble", async () => {
    const { sessions, result } = await importFixture(teamsDocxImporter, "teams-docx/newer-name-and-offset-headers.docx");
    const [s] = sessions;
    expect(s.turns.map((t) => [speakerName(s, t.index), t.type, t.text, t.start])).toEqual([
      ["Teams", "system", "Kim Park started transcription", undefined],
      ["Kim Park", "message", "OK, let's look at the burndown first.", 3],
      ["Copilot", "message", "Here is a summary: two stories slipped.\nBoth are blocked on the API change.", 41],
      ["Luis Ortega", "message", "Thanks,\nthat matches what I saw.", 3902],
      ["Teams", "system", "Kim Park stopped transcription", undefined],
    ]);
    expect(s.metadata.preamble).toBe("Sprint review\nMarch 4, 2024, 2:00PM\n32m 10s\nTranscript");
    expect(result.warnings).toEqual([]);
  });

  it("older shape: timing, name, words", async () => {
    const { sessions } = await importFixture(teamsDocxImporter, "teams-docx/older-timing-name-text.docx");
    const [s] = sessions;
    expect(s.turns.map((t) => [speakerName(s, t.index), t.text, t.start, t.end])).toEqual([
      ["Meera Shah", "Can everyone hear me?", 0, 4.57],
      ["Jonas Weber", "Yes, loud & clear <3", 5.12, 7.3],
    ]);
  });

  it("is detected from its file and hints at --agents for Copilot", async () => {
    const [file] = await importFiles([fixture("teams-docx/newer-name-and-offset-headers.docx")]);
    expect(file!.format).toBe("teams-docx");
    expect(file!.result!.warnings).toEqual([expect.stringMatching(/"Copilot" looks like an assistant/)]);
  });

  it("refuses what is not a Teams transcript, saying why", async () => {
    await expect(teamsDocxImporter.parse(bytesInput("x.docx", Buffer.from("plain text")), {})).rejects.toThrow(/^x\.docx: not a \.docx \(zip\) file/);
    const noSpeakers = makeDocx([["Minutes"], ["Nothing was said."]]);
    const error = await teamsDocxImporter.parse(bytesInput("m.docx", noSpeakers), {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportError);
    expect((error as Error).message).toMatch(/^m\.docx: no speaker paragraph found in 2 paragraph\(s\); expected a Microsoft Teams transcript/);
  });

  it("reads Word's timing/name/words layout saved as a .txt file, and detects it", async () => {
    const path = fixture("teams-docx/word-layout-saved-as-text.txt");
    const [file] = await importFiles([path]);
    expect(file!.format).toBe("teams-docx");
    const s = file!.result!.sessions[0]!;
    expect(s.turns.map((t) => [t.text, t.start])).toEqual([
      ["Good morning, can everyone hear me?", 1],
      ["Yes, loud and clear.", 4.1],
      ["Great. First item is the launch date.", 6.2],
    ]);
  });

  it("warns when the document holds bytes that are not UTF-8, instead of replacing them silently", async () => {
    const body = new TextEncoder().encode('<w:document xmlns:w="w"><w:body><w:p><w:r><w:t>Nora   0:03</w:t></w:r></w:p><w:p><w:r><w:t>caf');
    const tail = new TextEncoder().encode(" ok</w:t></w:r></w:p></w:body></w:document>");
    const document = new Uint8Array([...body, 0xe9, ...tail]);
    const { zipSync } = await import("fflate");
    const result = await teamsDocxImporter.parse(bytesInput("bad-bytes.docx", zipSync({ "word/document.xml": document })), {});
    expect(result.sessions[0]!.turns[0]!.text).toBe("caf\uFFFD ok");
    expect(result.warnings).toEqual([
      "bad-bytes.docx (word/document.xml): 1 invalid UTF-8 byte sequence(s) replaced by U+FFFD; the file's words there are not readable",
    ]);
  });
});

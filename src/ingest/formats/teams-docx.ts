import { unzipEntries, utf8Text } from "../../util/zip.js";
import { SessionBuilder, sessionIdFromPath } from "../builder.js";
import { ImportError, type Importer, type ImportResult } from "../types.js";
import { childrenOf, parseXml, tagOf, textOf, type XmlNode } from "./xml.js";

const EXPECTED = "a Microsoft Teams transcript saved as .docx (a Word file with paragraphs `Name   0:03` + text, or `0:0:0.0 --> 0:0:5.1` + name + text)";
/** Newer Teams: `Speaker Name   1:02:03` (a tab or 2+ spaces before the offset). */
const NEW_HEADER = /^(\S.*?)(?:\t+|\s{2,})(\d{1,2}(?::\d{1,2}){1,2})\s*$/;
/** Older Teams: a cue timing paragraph, then the speaker's name, then the words. */
const OLD_TIMING = /^(\d{1,2}:\d{1,2}:\d{1,2}(?:\.\d+)?)\s*-->\s*(\d{1,2}:\d{1,2}:\d{1,2}(?:\.\d+)?)\s*$/;
/** Notices Teams writes into the transcript itself. */
const NOTICE = /^(.+?) (started|stopped) transcription\s*$/;

/**
 * Microsoft Teams meeting transcripts downloaded as Word (.docx), read with fflate and the XML
 * parser (no Word needed). Both shapes Teams has written:
 *   newer   `Alice Smith   0:03` paragraph, then the words (one or more paragraphs)
 *   older   `0:0:0.0 --> 0:0:5.120`, then `Alice Smith`, then the words
 * Paragraph text is the document's runs in order (tabs and line breaks kept); table cells count
 * as paragraphs. "Name started/stopped transcription" notices are `system` turns; the title,
 * date and "Transcript" lines before the first speaker go to `metadata.preamble`.
 * The same layout copied out of Word into a text file (timing line, name, words; no WEBVTT
 * header) is read from its lines. Bytes of the document that are not UTF-8 become U+FFFD with a
 * warning, as a text file's would be named.
 */
export const teamsDocxImporter: Importer = {
  name: "teams-docx",
  description: "Microsoft Teams transcript .docx",
  extensions: [".docx"],
  input: "file",
  detect(path, head) {
    const docx = /\.docx$/i.test(path);
    const zip = head.startsWith("PK") && head.includes("word/document.xml");
    if (docx || zip) return docx && zip ? 0.9 : docx ? 0.6 : 0.5;
    // Word's layout as text: a timing line, then a line that is a name, not another timing.
    const [first, second] = head.split(/\r\n|\n|\r/).filter((l) => l.trim() !== "");
    return first !== undefined && second !== undefined && OLD_TIMING.test(first.trim()) && !/-->/.test(second) ? 0.8 : 0;
  },
  async parse(input, options) {
    const file = input.path;
    const result: ImportResult = { sessions: [], codes: [], warnings: [] };
    const bytes = await input.readBytes();
    const zip = /\.docx$/i.test(file) || (bytes[0] === 0x50 && bytes[1] === 0x4b);
    const paragraphs = zip ? docxParagraphs(bytes, file, result.warnings) : (await input.readText()).split(/\r\n|\n|\r/);
    const lines = paragraphs.flatMap((p) => p.split("\n"));
    const builder = new SessionBuilder(sessionIdFromPath(file), { source: { file, format: "teams-docx" } }, options.agents);
    const preamble: string[] = [];
    let current: { speaker: string; text: string[]; start?: number; end?: number; system?: boolean } | undefined;
    const flush = () => {
      if (current)
        builder.turn(current.speaker, {
          text: current.text.join("\n").trim(),
          start: current.start,
          end: current.end,
          type: current.system ? "system" : "message",
        });
      current = undefined;
    };
    let pendingTiming: { start: number; end: number } | undefined;
    for (const raw of lines) {
      const line = raw.replace(/\s+$/, "");
      if (line.trim() === "") continue;
      const timing = OLD_TIMING.exec(line.trim());
      if (timing) {
        flush();
        pendingTiming = { start: seconds(timing[1]!), end: seconds(timing[2]!) };
        continue;
      }
      if (pendingTiming) {
        // Older shape: the paragraph after a timing names the speaker.
        current = { speaker: builder.participant(line.trim()), text: [], ...pendingTiming };
        pendingTiming = undefined;
        continue;
      }
      const notice = NOTICE.exec(line.trim());
      if (notice) {
        flush();
        builder.participant(notice[1]!);
        current = { speaker: builder.participant("Teams", { kind: "system" }), text: [line.trim()], system: true };
        flush();
        continue;
      }
      const header = NEW_HEADER.exec(line);
      if (header) {
        flush();
        current = { speaker: builder.participant(header[1]!.trim()), text: [], start: seconds(header[2]!) };
        continue;
      }
      if (current) current.text.push(line);
      else preamble.push(line);
    }
    flush();
    if (preamble.length > 0) builder.metadata.preamble = preamble.join("\n");
    if (builder.turnCount === 0) {
      throw new ImportError({ file, problem: `no speaker paragraph found in ${paragraphs.length} paragraph(s)`, expected: EXPECTED });
    }
    result.sessions.push(builder.build());
    return result;
  },
};

/** `1:02:03`, `0:03`, `0:0:5.120` -> seconds. */
function seconds(clock: string): number {
  return clock.split(":").reduce((total, part) => total * 60 + Number(part), 0);
}

/** The text of every paragraph of word/document.xml, in document order. */
function docxParagraphs(bytes: Uint8Array, file: string, warnings: string[]): string[] {
  let entries: Record<string, Uint8Array>;
  try {
    // Only the body is inflated; images and styles stay compressed.
    entries = unzipEntries(bytes, (name) => name === "word/document.xml");
  } catch (error) {
    throw new ImportError({ file, problem: `not a .docx (zip) file: ${(error as Error).message}`, expected: EXPECTED });
  }
  const document = entries["word/document.xml"];
  if (!document) throw new ImportError({ file, problem: "the zip has no word/document.xml", expected: EXPECTED });
  const xml = utf8Text(document, `${file} (word/document.xml)`, warnings).replace(/^\uFEFF/, "");
  const out: string[] = [];
  const walk = (nodes: readonly XmlNode[]): void => {
    for (const node of nodes) {
      const tag = tagOf(node);
      if (tag === "w:p") out.push(runText(childrenOf(node)));
      else if (textOf(node) === undefined) walk(childrenOf(node));
    }
  };
  walk(parseXml(xml, `${file} (word/document.xml)`, EXPECTED));
  return out;
}

/** UTF-8 as Word writes it; invalid bytes become U+FFFD and are counted in a warning, never silently. */
/** A paragraph's runs: `w:t` text, `w:tab` as a tab, `w:br`/`w:cr` as a line break; deleted text (`w:del`) left out. */
function runText(nodes: readonly XmlNode[]): string {
  let text = "";
  for (const node of nodes) {
    const tag = tagOf(node);
    if (tag === "w:t")
      text += childrenOf(node)
        .map((n) => textOf(n) ?? "")
        .join("");
    else if (tag === "w:tab") text += "\t";
    else if (tag === "w:br" || tag === "w:cr") text += "\n";
    else if (tag === "w:del" || tag === "w:instrText") continue;
    else if (textOf(node) === undefined) text += runText(childrenOf(node));
  }
  return text;
}

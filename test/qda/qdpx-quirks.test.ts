import { strFromU8, strToU8, unzipSync, zipSync } from "fflate";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { readCodes } from "../../src/coding/store.js";
import { readPositionUnit } from "../../src/qda/positions.js";
import { parseQdaXml } from "../../src/qda/qdc.js";
import { loadSessions, loadStudyConfig } from "../../src/study/study.js";
import { runCli } from "../support/cli.js";
import { officialSchemas, schemaErrors } from "./validate.js";

/**
 * Quirks of real QDA exports (measured on the projects in ../shared/corpora/qda, reproduced here
 * in our own fixtures): NVivo counts positions in UTF-16 units; a source that is a data dump, not
 * a transcript, has recurring "Title: subtitle" lines; codings cover phrases and cross lines;
 * MAXQDA exports codes nobody has applied yet.
 */
const G = (n: number) => `{${String(n).padStart(8, "0")}-AAAA-4BBB-8CCC-DDDDDDDDDDDD}`;

/** Records as NVivo writes a YouTube comments export: one field per line, no blank lines, emoji. */
const comments = [
  ["Vaccine law: what now?", "@anna", "Great video 👍🏽 thanks", "3"],
  ["Vaccine law: what now?", "@bela", "I disagree 😡 completely, it is a scam", "0"],
  ["Doctors: an interview", "@cili", "Finally 🙏 someone says it", "12"],
  ["Doctors: an interview", "@dani", "Not convinced 🤔 at all", "1"],
];
const dump = `\uFEFFvideo_title\r\nauthor\r\ntext\r\nlikes\r\n${comments.map((c) => c.join("\r\n")).join("\r\n")}\r\n`;
const text = dump.slice(1);
/** [start, end) of `words` in the text, in UTF-16 units (NVivo's count). */
const utf16 = (words: string, from = 0) => [text.indexOf(words, from), text.indexOf(words, from) + words.length] as const;
const codes = { praise: G(1), anger: G(2), doubt: G(3), unused: G(4) };
const users = { gergo: G(5), flo: G(6) };

function selection(n: number, [start, end]: readonly [number, number], code: string, user: string): string {
  return `<PlainTextSelection guid="${G(100 + n)}" name="" startPosition="${start}" endPosition="${end}" creatingUser="${users.gergo}"><Description /><Coding guid="${G(200 + n)}" creatingUser="${user}"><CodeRef targetGUID="${code}"/></Coding></PlainTextSelection>`;
}

const [crossStart] = utf16("Finally 🙏");
const [, crossEnd] = utf16("12", crossStart);
const qde = `<?xml version="1.0" encoding="utf-8"?>
<Project xmlns="urn:QDA-XML:project:1.0" name="Untitled" origin="NVivo for Windows 12.6">
  <Users><User guid="${users.gergo}" name="Gergo"/><User guid="${users.flo}" name="floriansipos"/></Users>
  <CodeBook><Codes>
    <Code guid="${codes.praise}" name="Praise" isCodable="true"/>
    <Code guid="${codes.anger}" name="Anger" isCodable="true"><Code guid="${codes.unused}" name="Not used yet" isCodable="true"/></Code>
    <Code guid="${codes.doubt}" name="Doubt" isCodable="true"/>
  </Codes></CodeBook>
  <Sources>
    <TextSource guid="${G(7)}" name="videos_selection" plainTextPath="internal://${G(7).slice(1, -1).toLowerCase()}.txt">
      ${selection(1, utf16("Great video 👍🏽 thanks"), codes.praise, users.flo)}
      ${selection(2, utf16("scam"), codes.anger, users.flo)}
      ${selection(3, utf16("I disagree 😡 completely, it is a scam"), codes.doubt, users.gergo)}
      ${selection(4, [crossStart, crossEnd], codes.doubt, users.flo)}
    </TextSource>
  </Sources>
</Project>`;

let root: string;
let file: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "colloquy-qdpx-quirks-"));
  file = join(root, "nvivo.qdpx");
  await writeFile(file, zipSync({ "project.qde": strToU8(qde), [`Sources/${G(7).slice(1, -1).toLowerCase()}.txt`]: strToU8(dump) }));
});

describe("position units", () => {
  const sources = [{ text, selections: [utf16("scam"), utf16("Not convinced")].map(([start, end]) => ({ start, end })) }];

  it("reads NVivo's positions as UTF-16 units, and says why", () => {
    const reading = readPositionUnit("NVivo for Windows 12.6", sources);
    expect(reading.unit).toBe("utf16");
    expect(reading.reason).toContain(
      "of the 2 selection(s) the units read differently, 2 start and end between words read as UTF-16 units, 0 read as code points",
    );
  });

  it("follows the text over the tool: UTF-16 positions from a tool that should count code points are read as such", () => {
    expect(readPositionUnit("SomeQDA 14", sources).unit).toBe("utf16");
    const cp = (words: string) => Array.from(text.slice(0, text.indexOf(words))).length;
    const inCodePoints = [{ text, selections: [{ start: cp("scam"), end: cp("scam") + 4 }] }];
    expect(readPositionUnit("NVivo for Windows 12.6", inCodePoints).unit).toBe("codepoints");
    // Nothing after an emoji: the tool's habit decides.
    expect(readPositionUnit("NVivo 14", [{ text, selections: [{ start: 0, end: 11 }] }]).unit).toBe("utf16");
  });
});

describe("an NVivo project of YouTube comments", () => {
  it("keeps the dump as a document (a turn per line, no invented speakers), every coding at its words with its user", async () => {
    const study = join(root, "study");
    const run = await runCli(["import", file, "--study", study]);
    expect(run.code).toBe(0);
    const [session] = await loadSessions(study);
    expect(session.participants.map((p) => p.name)).toEqual(["(unattributed)"]);
    expect(session.turns.map((t) => t.text)).toEqual(text.trimEnd().split("\r\n"));
    expect(run.stdout).toContain(
      'source "videos_selection" is not a transcript: 4 line(s) look like "Name:" speaker lines, too few to read the source as speaker turns; kept as a document, one turn per paragraph (20, a paragraph being a line)',
    );
    expect(run.stdout).toContain("positions read as UTF-16 units (NVivo for Windows 12.6 counts UTF-16 units;");
    expect(run.stdout).toContain("codings: 4 read, 4 stored with their ranges, 0 not stored");

    const turnOf = (words: string) => session.turns.find((t) => t.text.includes(words))!;
    const flo = await readCodes(study, "untitled", "human:floriansipos");
    const words = (r: (typeof flo)[number]) =>
      r.segments?.map((s) =>
        Array.from(session.turns.find((t) => t.id === r.turn)!.text)
          .slice(s.start, s.end)
          .join(""),
      );
    // A phrase keeps its range; a coding over two lines is one coding of each.
    expect(flo.map((r) => [r.turn, r.codes, words(r)])).toEqual([
      [turnOf("Great video").id, ["praise"], undefined],
      [turnOf("scam").id, ["anger"], ["scam"]],
      [turnOf("Finally").id, ["doubt"], undefined],
      [session.turns[session.turns.indexOf(turnOf("Finally")) + 1].id, ["doubt"], undefined],
    ]);
    expect(run.stdout).toContain("1 coding(s) spanned several turns: each is stored as one segment per turn it covers");
    // The selection's maker (Gergo) is not the coder: the coding's user is.
    expect((await readCodes(study, "untitled", "human:gergo")).map((r) => r.turn)).toEqual([turnOf("scam").id]);
    expect(flo[0].provenance).toMatchObject({ user: "floriansipos", positions: "utf16" });
  });

  it("lists the imported codebook in colloquy.json, so an export writes it again, codes nobody applied included", async () => {
    const study = join(root, "study");
    expect((await loadStudyConfig(study)).codebooks.map((c) => [c.codebook, c.coders])).toContainEqual(["untitled", []]);
    const out = join(root, "again.qdpx");
    const run = await runCli(["export", study, "--format", "qdpx", "--crlf", "--out", out]);
    expect(run.code).toBe(0);
    const files = unzipSync(await readFile(out));
    const xml = strFromU8(files["project.qde"]);
    expect(await schemaErrors(xml, "project")).toEqual({ own: [], ...(officialSchemas ? { official: [] } : {}) });
    const project = parseQdaXml(xml).Project as any;
    const names: string[] = [];
    const walk = (list: any[]) => list.forEach((c) => (names.push(c["@_name"]), walk(c.Code ?? [])));
    walk(project.CodeBook.Codes.Code);
    expect(names).toEqual(expect.arrayContaining(["Praise", "Anger", "Not used yet", "Doubt"]));
    // Positions in code points over CRLF text: each coding selects the words it was made on.
    const [source] = project.Sources.TextSource;
    const chars = Array.from(strFromU8(files[`sources/${source["@_plainTextPath"].slice("internal://".length)}`]));
    const users = new Map(project.Users.User.map((u: any) => [u["@_guid"], u["@_name"]]));
    const selected = source.PlainTextSelection.map(
      (s: any) => `${users.get(s["@_creatingUser"])}: ${chars.slice(Number(s["@_startPosition"]), Number(s["@_endPosition"])).join("")}`,
    );
    expect(selected.sort()).toEqual(
      [
        "floriansipos: Great video 👍🏽 thanks",
        "floriansipos: scam",
        "Gergo: I disagree 😡 completely, it is a scam",
        "floriansipos: Finally 🙏 someone says it",
        "floriansipos: 12",
      ].sort(),
    );
  });
});

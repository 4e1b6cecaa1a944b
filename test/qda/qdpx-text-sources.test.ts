import { strToU8, zipSync } from "fflate";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { listCoders, readCodes } from "../../src/coding/store.js";
import { readProject } from "../../src/qda/project-read.js";
import { loadSessions } from "../../src/study/study.js";
import { runCli } from "../support/cli.js";

/**
 * Text sources as other tools write them (our own fixtures, built here): prose that is not a
 * transcript, and a source whose text and names are written with XML character references.
 * REFI-QDA offsets count the characters of the decoded text (code points), so both must hold.
 */
const G = (n: number) => `0000000${n}-aaaa-4bbb-8ccc-dddddddddddd`;
const cp = (s: string) => Array.from(s).length;
/** [start, end) of `words` in `text`, in code points. */
const range = (text: string, words: string) => [cp(text.slice(0, text.indexOf(words))), cp(text.slice(0, text.indexOf(words))) + cp(words)] as const;

function project(name: string, codes: string, source: string): string {
  return `<?xml version="1.0" encoding="utf-8"?>
<Project xmlns="urn:QDA-XML:project:1.0" name="${name}" origin="SomeQDA 14">
  <Users><User guid="${G(5)}" name="Jos&#233;"/></Users>
  <CodeBook><Codes>${codes}</Codes></CodeBook>
  <Sources>${source}</Sources>
</Project>`;
}
const selection = (n: number, [start, end]: readonly [number, number], code: string) =>
  `<PlainTextSelection guid="${G(n)}" startPosition="${start}" endPosition="${end}" creatingUser="${G(5)}"><Coding guid="${G(n + 50)}"><CodeRef targetGUID="${code}"/></Coding></PlainTextSelection>`;

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "colloquy-qdpx-text-"));
});

describe("a foreign source that is prose with one 'Note:' line", () => {
  const prose = "The interviewer explained the study.\nWe all agreed to take part.\n\nNote: the recorder was on.\nLater paragraph about the plan.\n";

  it("keeps every paragraph as a turn, warns, and stores codings on the paragraphs they fall on", async () => {
    const file = join(root, "prose.qdpx");
    const qde = project(
      "Field notes",
      `<Code guid="${G(1)}" name="Consent" isCodable="true"/><Code guid="${G(2)}" name="Planning" isCodable="true"/>`,
      `<TextSource guid="${G(7)}" name="Notes 1" plainTextPath="internal://${G(7)}.txt">${selection(10, range(prose, "We all agreed"), G(1))}${selection(11, range(prose, "Later paragraph"), G(2))}</TextSource>`,
    );
    await writeFile(file, zipSync({ "project.qde": strToU8(qde), [`sources/${G(7)}.txt`]: strToU8(prose) }));
    const study = join(root, "prose");
    const run = await runCli(["import", file, "--study", study]);
    expect(run.code).toBe(0);
    const [session] = await loadSessions(study);
    expect(session.turns.map((t) => t.text)).toEqual([
      "The interviewer explained the study.\nWe all agreed to take part.",
      "Note: the recorder was on.\nLater paragraph about the plan.",
    ]);
    expect(session.participants.map((p) => p.name)).toEqual(["(unattributed)"]);
    expect(run.stdout).toContain(
      `source "Notes 1" is not a transcript: 1 line(s) look like "Name:" speaker lines, too few to read the source as speaker turns; kept as a document, one turn per paragraph (2, a paragraph being a block between blank lines)`,
    );
    const records = await readCodes(study, "field-notes", "human:jose");
    expect(records.map((r) => [r.turn, r.codes])).toEqual([
      ["t0000", ["consent"]],
      ["t0001", ["planning"]],
    ]);
    expect(run.stdout).toContain("codings: 2 read, 2 stored with their ranges, 0 not stored");
  });
});

describe("character references in a project (&#233; &#x1F600; &#13;&#10;)", () => {
  // The text as a QDA tool means it, and the same text as written inside <PlainTextContent>.
  const text = "Ana: café 😀 is ok\r\nBen: <yes> & more\r\n";
  const written = "Ana: caf&#233; &#x1F600; is ok&#13;&#10;Ben: &lt;yes&gt; &amp; more&#13;&#10;";
  const qde = project(
    "Caf&#233; study",
    `<Code guid="${G(1)}" name="Caf&#xE9; talk" isCodable="true"/><Code guid="${G(2)}" name="Other" isCodable="true"/>`,
    `<TextSource guid="${G(7)}" name="Caf&#233; group &#x1F600;"><PlainTextContent>${written}</PlainTextContent>${selection(10, range(text, "is ok"), G(1))}${selection(11, range(text, "more"), G(1))}</TextSource>`,
  );

  it("decodes them in text and names, so selection offsets count the decoded characters", () => {
    const read = readProject(zipSync({ "project.qde": strToU8(qde) }), "refs.qdpx");
    const [source] = read.sources;
    expect(source.text).toBe(text);
    expect(source.name).toBe("Café group 😀");
    expect(read.codes[0].name).toBe("Café talk");
    expect([...read.users.values()][0].name).toBe("José");
    const chars = Array.from(source.text);
    expect(source.selections.map((s) => chars.slice(s.start, s.end).join(""))).toEqual(["is ok", "more"]);
  });

  it("imports the coded words onto their turns", async () => {
    const file = join(root, "refs.qdpx");
    await writeFile(file, zipSync({ "project.qde": strToU8(qde) }));
    const study = join(root, "refs");
    const run = await runCli(["import", file, "--study", study]);
    expect(run.code).toBe(0);
    const [session] = await loadSessions(study);
    expect(session.turns.map((t) => t.text)).toEqual(["café 😀 is ok", "<yes> & more"]);
    expect(await listCoders(study)).toEqual({ "cafe-study": ["human:jose"] });
    expect((await readCodes(study, "cafe-study", "human:jose")).map((r) => [r.turn, r.codes])).toEqual([
      ["t0000", ["cafe-talk"]],
      ["t0001", ["cafe-talk"]],
    ]);
    const codebook = JSON.parse(await readFile(join(study, "codebooks", "cafe-study.json"), "utf8"));
    expect(codebook.categories.map((c: { label: string }) => c.label)).toEqual(["Café talk", "Other"]);
  });

  it("refuses an HTML-only entity such as &nbsp;, naming the line", async () => {
    const file = join(root, "nbsp.qdpx");
    await writeFile(file, zipSync({ "project.qde": strToU8(qde.replace("is ok", "is&nbsp;ok")) }));
    const run = await runCli(["import", file, "--study", join(root, "nbsp")]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("project.qde is not valid XML (line 5: &nbsp; is not an XML entity");
  });
});

import { strFromU8, strToU8, unzipSync, zipSync } from "fflate";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { listCoders, readCodes } from "../../src/coding/store.js";
import { parseQdaXml } from "../../src/qda/qdc.js";
import { loadSessions } from "../../src/study/study.js";
import { runCli } from "../support/cli.js";
import { officialSchemas, schemaErrors } from "./validate.js";

/**
 * A project as another tool writes it (our own fixture, reproducing quirks seen in NVivo, MAXQDA
 * and ATLAS.ti exports): GUIDs in braces and upper case, a "Sources/" folder, a byte-order mark and
 * CRLF line breaks, users without ids, the user on the selection rather than the coding, a title
 * line before the first speaker (kept as a turn of no speaker), a non-codable folder code, a coding across two turns,
 * a coding of a phrase inside a turn, the same code on the same words twice.
 */
const text = "Focus group 2\r\nInterviewer: What do you think of the plan?\r\nParticipant 1: I think it is too slow.\r\nParticipant 2: I agree.\r\n";
const range = (words: string) => [text.indexOf(words), text.indexOf(words) + words.length] as const;
const G = (n: number) => `{0000000${n}-AAAA-4BBB-8CCC-DDDDDDDDDDDD}`;
const codes = { taskArea: G(1), givesOpinion: G(2), agrees: G(3), asksOpinion: G(4) };
const users = { jane: G(5), ken: G(6) };

function selection(n: number, [start, end]: readonly [number, number], code: string, user: string): string {
  return `<PlainTextSelection guid="${G(n)}" startPosition="${start}" endPosition="${end}" creatingUser="${user}"><Coding guid="${G(n + 50)}"><CodeRef targetGUID="${code}"/></Coding></PlainTextSelection>`;
}

const [p1start] = range("I think it is too slow.");
const [, p2end] = range("I agree.");

const qde = `<?xml version="1.0" encoding="utf-8"?>
<Project xmlns="urn:QDA-XML:project:1.0" name="Focus groups 2025" origin="SomeQDA 14">
  <Users><User guid="${users.jane}" name="Jane Doe"/><User guid="${users.ken}" name="Ken"/></Users>
  <CodeBook><Codes>
    <Code guid="${codes.taskArea}" name="Task area" isCodable="false">
      <Code guid="${codes.givesOpinion}" name="Gives opinion" isCodable="true"><Description>Evaluation, analysis, expression of feeling or wish.</Description></Code>
      <Code guid="${codes.agrees}" name="Agrees" isCodable="true"/>
    </Code>
    <Code guid="${codes.asksOpinion}" name="Asks for opinion" isCodable="true"/>
  </Codes></CodeBook>
  <Sources>
    <TextSource guid="${G(7)}" name="Focus group 2" plainTextPath="internal://${G(7).slice(1, -1)}.txt" creatingUser="${users.jane}" creationDateTime="2025-05-02T10:00:00Z">
      ${selection(10, range("What do you think of the plan?"), codes.asksOpinion, users.jane)}
      ${selection(11, range("I think it is too slow."), codes.givesOpinion, users.jane)}
      ${selection(12, range("I agree."), codes.agrees, users.jane)}
      ${selection(13, range("I agree."), codes.givesOpinion, users.ken)}
      ${selection(14, [p1start, p2end], codes.givesOpinion, users.ken)}
      ${selection(15, range("Focus group 2"), codes.agrees, users.ken)}
      ${selection(16, range("I think"), codes.taskArea, users.ken)}
      ${selection(17, range("too slow"), codes.agrees, users.jane)}
    </TextSource>
  </Sources>
  <Sets><Set guid="${G(8)}" name="Wave 1"><MemberSource targetGUID="${G(7)}"/></Set></Sets>
</Project>`;

let root: string;
let project: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "colloquy-qdpx-foreign-"));
  project = join(root, "focus-groups.qdpx");
  await writeFile(project, zipSync({ "project.qde": strToU8(qde), [`Sources/${G(7).slice(1, -1)}.txt`]: strToU8(`\uFEFF${text}`) }));
});

describe("colloquy import <project.qdpx> from another tool", () => {
  it("makes sessions of speaker lines, a codebook of the codes, records of the users, and reports codings that name no single turn", async () => {
    const study = join(root, "own");
    const run = await runCli(["import", project, "--study", study]);
    expect(run.code).toBe(0);
    const [session] = await loadSessions(study);
    expect(session.participants.map((p) => p.name)).toEqual(["(unattributed)", "Interviewer", "Participant 1", "Participant 2"]);
    // The title line before the first speaker is a turn of its own, never dropped.
    expect(session.turns.map((t) => t.text)).toEqual(["Focus group 2", "What do you think of the plan?", "I think it is too slow.", "I agree."]);
    expect(run.stdout).toContain(`source "Focus group 2": 1 paragraph(s) before the first "Name:" speaker line are kept as turns of (unattributed)`);
    expect(session.metadata.source).toMatchObject({ format: "qdpx", name: "Focus group 2" });
    // What the project says about the source is kept: its set, its author (by name), its dates.
    expect(session.metadata.qda).toMatchObject({ sets: ["Wave 1"], attributes: { creatingUser: "Jane Doe", creationDateTime: "2025-05-02T10:00:00Z" } });

    const codebook = JSON.parse(await readFile(join(study, "codebooks", "focus-groups-2025.json"), "utf8"));
    expect(codebook).toMatchObject({ id: "focus-groups-2025", kind: "nominal", multiple: true, groups: [{ id: "task-area", label: "Task area" }] });
    expect(codebook.categories.map((c: { id: string; groups?: string[] }) => [c.id, c.groups])).toEqual([
      ["gives-opinion", ["task-area"]],
      ["agrees", ["task-area"]],
      ["asks-for-opinion", undefined],
    ]);

    expect(await listCoders(study)).toEqual({ "focus-groups-2025": ["human:jane-doe", "human:ken"] });
    // The project's users are people: listed for `colloquy study`'s agreement, and said so.
    expect(JSON.parse(await readFile(join(study, "colloquy.json"), "utf8")).humanCoders).toEqual(["human:jane-doe", "human:ken"]);
    expect(run.stdout).toContain('human:ken is now listed under "humanCoders" in colloquy.json');
    const jane = await readCodes(study, "focus-groups-2025", "human:jane-doe");
    expect(jane.map((r) => [r.turn, r.codes])).toEqual([
      ["t0001", ["asks-for-opinion"]],
      ["t0002", ["gives-opinion", "agrees"]],
      ["t0003", ["agrees"]],
    ]);
    // Whole-turn codings need no ranges; a phrase keeps its own, in code points of the turn's words.
    expect(jane.map((r) => r.segments)).toEqual([
      undefined,
      [
        { start: 0, end: 23, codes: ["gives-opinion"] },
        { start: 14, end: 22, codes: ["agrees"] },
      ],
      undefined,
    ]);
    // Ken's code on the title lands on the title's turn; his coding over two turns is one segment on each.
    expect((await readCodes(study, "focus-groups-2025", "human:ken")).map((r) => [r.turn, r.codes])).toEqual([
      ["t0003", ["gives-opinion"]],
      ["t0002", ["gives-opinion"]],
      ["t0000", ["agrees"]],
    ]);
    expect(run.stdout).toContain(
      "codings: 8 read, 7 stored with their ranges (1 repeating another of the same user, code and range, stored once), 1 not stored",
    );
    expect(run.stdout).toContain("1 coding(s) spanned several turns: each is stored as one segment per turn it covers");
    // Reported with its range, never forced onto a turn.
    expect(run.stdout).toContain(`"Task area": its code is not a codable code`);
  });

  it("exports every coding back at its words, by its user, named as in the project", async () => {
    const study = join(root, "own");
    const out = join(root, "again.qdpx");
    expect((await runCli(["export", study, "--format", "qdpx", "--out", out])).code).toBe(0);
    const files = unzipSync(await readFile(out));
    const qde = strFromU8(files["project.qde"]);
    expect(await schemaErrors(qde, "project")).toEqual({ own: [], ...(officialSchemas ? { official: [] } : {}) });
    const doc = parseQdaXml(qde).Project as any;
    const names = new Map(doc.Users.User.map((u: any) => [u["@_guid"], u["@_name"]]));
    const codeNames = new Map<string, string>();
    const walk = (codes: any[]) => codes.forEach((c) => (codeNames.set(c["@_guid"], c["@_name"]), walk(c.Code ?? [])));
    walk(doc.CodeBook.Codes.Code);
    const [source] = doc.Sources.TextSource;
    const chars = Array.from(strFromU8(files[`sources/${source["@_plainTextPath"].slice("internal://".length)}`]));
    const codings = source.PlainTextSelection.flatMap((sel: any) =>
      sel.Coding.map((c: any) => {
        // QualCoder reads the coder from the selection, NVivo from the coding: they agree.
        expect(c["@_creatingUser"]).toBe(sel["@_creatingUser"]);
        const words = chars.slice(Number(sel["@_startPosition"]), Number(sel["@_endPosition"])).join("");
        return `${names.get(sel["@_creatingUser"])}|${codeNames.get(c.CodeRef["@_targetGUID"])}|${words}`;
      }),
    );
    expect(codings.sort()).toEqual(
      [
        "Jane Doe|Asks for opinion|What do you think of the plan?",
        "Jane Doe|Gives opinion|I think it is too slow.",
        "Jane Doe|Agrees|too slow",
        "Jane Doe|Agrees|I agree.",
        "Ken|Gives opinion|I agree.",
        "Ken|Gives opinion|I think it is too slow.",
        "Ken|Agrees|Focus group 2",
      ].sort(),
    );
  });

  it("--codebook maps the project's codes onto a codebook the study has, so `colloquy agree` compares them with Colloquy's coders", async () => {
    const study = join(root, "bales");
    const run = await runCli(["import", project, "--study", study, "--codebook", "bales-ipa"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("codebook(s) bales-ipa;");
    const jane = await readCodes(study, "bales-ipa", "human:jane-doe");
    // Two codes on one turn of a one-code-per-turn codebook: stored as given, and said.
    expect(jane.map((r) => r.codes)).toEqual([["asks-opinion"], ["agrees", "gives-opinion"], ["agrees"]]);
    expect(run.stdout).toContain(
      "human:jane-doe gave focus-group-2/t0002 2 codes (agrees, gives-opinion) under bales-ipa, which takes one per turn; stored as given",
    );
    expect((await runCli(["code", study, "--codebook", "bales-ipa", "--coder", "rules"])).code).toBe(0);
    const agree = await runCli(["agree", study, "--codebook", "bales-ipa", "--coders", "rules,human:jane-doe", "--json"]);
    expect(agree.stderr).toBe("");
    expect(agree.code).toBe(0);
    const report = JSON.parse(agree.stdout);
    expect(report.coders).toEqual(["rules", "human:jane-doe"]);
    // Every turn Jane coded is compared: the rules coder coded those three and the title's turn.
    expect(report.coverage).toMatchObject({ unitsCodedByAll: 3, perCoder: { "human:jane-doe": 3, rules: 4 } });
  });

  it("names the file when it is not a REFI-QDA project", async () => {
    const bad = join(root, "bad.qdpx");
    await writeFile(bad, "not a zip");
    const run = await runCli(["import", bad, "--study", join(root, "none")]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(`${bad}: not a zip archive`);
  });
});

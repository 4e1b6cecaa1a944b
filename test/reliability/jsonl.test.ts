// Append-only files that heal: a torn last line is moved out before the next append, a damaged
// line in the middle names file:line and `colloquy repair`, which keeps every complete record.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { appendJsonl, describeRepair, readJsonl, repairJsonl, salvageLine } from "../../src/util/fs.js";
import { initStudy } from "../../src/study/study.js";
import { identifyArtifact } from "../../src/study/artifacts.js";
import { runCli } from "../support/cli.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "colloquy-jsonl-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const rec = (n: number) => ({ session: "s1", turn: `t${String(n).padStart(4, "0")}`, codes: ["agrees"], rationale: `record {${n}} "quoted"` });
const line = (n: number) => JSON.stringify(rec(n));
const tornFiles = async (folder: string) => (await readdir(folder)).filter((f) => f.includes(".torn-")).sort();

describe("appendJsonl heals a torn last line first", () => {
  it("moves the torn bytes to <file>.torn-<time> (written before the cut), appends after the last whole line, and says so", async () => {
    const file = join(dir, "llm.jsonl");
    const fragment = line(2).slice(0, 23);
    await writeFile(file, `${line(1)}\n${fragment}`);
    // A reader skips the torn line (a write may be in progress), it does not throw.
    expect(await readJsonl(file)).toEqual({ records: [rec(1)], torn: [2] });

    const repair = await appendJsonl(file, [rec(3)]);
    expect(repair).toMatchObject({
      file,
      line: 2,
      bytes: fragment.length,
      fragments: 1,
      salvaged: 0,
      tornFile: expect.stringMatching(/llm\.jsonl\.torn-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$/),
    });
    expect(await readFile(file, "utf8")).toBe(`${line(1)}\n${line(3)}\n`);
    expect(await readFile(repair!.tornFile, "utf8")).toBe(`${fragment}\n`);
    expect(describeRepair(repair!, dir)).toMatch(
      /^llm\.jsonl: line 2 was cut short by an interrupted write; its 23 unreadable byte\(s\) were moved to llm\.jsonl\.torn-\S+Z$/,
    );
    // The torn file is a registered study file, never read as codes.
    expect(identifyArtifact("codes", `bales-ipa/${repair!.tornFile.split("/").pop()}`)?.artifact.name).toBe("tornBytes");
    expect(identifyArtifact("codes", `bales-ipa/${repair!.tornFile.split("/").pop()}`)?.artifact.name).not.toBe("codes");

    // Sound now: the next append changes nothing else.
    expect(await appendJsonl(file, [rec(4)])).toBeUndefined();
    expect((await readJsonl(file)).records).toEqual([rec(1), rec(3), rec(4)]);
    expect(await tornFiles(dir)).toHaveLength(1);
  });

  it("keeps a last record that only lacks its newline (cut just before it)", async () => {
    const file = join(dir, "llm.jsonl");
    await writeFile(file, `${line(1)}\n${line(2)}`);
    expect(await appendJsonl(file, [rec(3)])).toBeUndefined();
    expect((await readJsonl(file)).records).toEqual([rec(1), rec(2), rec(3)]);
    expect(await tornFiles(dir)).toEqual([]);
  });

  it("un-glues the old bug's last line (a torn record with the next one appended onto it) and keeps that record", async () => {
    const file = join(dir, "llm.jsonl");
    await writeFile(file, `${line(1)}\n${line(2).slice(0, 30)}${line(3)}\n`);
    const repair = await appendJsonl(file, [rec(4)]);
    expect(repair).toMatchObject({ line: 2, bytes: 30, salvaged: 1 });
    expect((await readJsonl(file)).records).toEqual([rec(1), rec(3), rec(4)]);
    expect(await readFile(repair!.tornFile, "utf8")).toBe(`${line(2).slice(0, 30)}\n`);
  });

  it("a file that is only a torn fragment, an empty file and a missing one", async () => {
    const file = join(dir, "only.jsonl");
    await writeFile(file, `{"session":"s`);
    expect(await appendJsonl(file, [rec(1)])).toMatchObject({ line: 1, bytes: 13 });
    expect((await readJsonl(file)).records).toEqual([rec(1)]);
    await writeFile(join(dir, "empty.jsonl"), "");
    expect(await appendJsonl(join(dir, "empty.jsonl"), [rec(1)])).toBeUndefined();
    expect(await appendJsonl(join(dir, "sub", "new.jsonl"), [rec(1), rec(2)])).toBeUndefined();
    expect((await readJsonl(join(dir, "sub", "new.jsonl"))).records).toEqual([rec(1), rec(2)]);
  });
});

describe("damage inside a file", () => {
  it("readJsonl names file:line and the command that repairs it", async () => {
    const study = join(dir, "study");
    await initStudy(study);
    const file = join(study, "codes", "bales-ipa", "llm.jsonl");
    await appendJsonl(file, [rec(1)]);
    await writeFile(file, `${line(1)}\n${line(2).slice(0, 30)}${line(3)}\n${line(4)}\n`);
    await expect(readJsonl(file)).rejects.toThrow(`${file}:2: not a valid JSON line`);
    await expect(readJsonl(file)).rejects.toThrow(
      `Run \`colloquy repair ${study}\`: it moves the unreadable bytes to a .torn file next to it and keeps every complete record.`,
    );
  });

  it("repairJsonl keeps every complete record, moves each fragment, and is idempotent", async () => {
    const file = join(dir, "llm.jsonl");
    const body = [
      line(1),
      `${line(2).slice(0, 17)}${line(3)}`,
      line(4),
      `${line(5).slice(0, 9)}${line(6).slice(0, 40)}${line(7)}`,
      "garbage without a record",
      line(8),
      line(9).slice(0, 12),
    ].join("\n");
    await writeFile(file, body);
    const dry = await repairJsonl(file, { dryRun: true });
    expect(dry).toMatchObject({ line: 2, fragments: 4, salvaged: 2 });
    expect(await readFile(file, "utf8")).toBe(body);
    expect(await tornFiles(dir)).toEqual([]);

    const repair = await repairJsonl(file);
    expect(repair).toMatchObject({ line: 2, fragments: 4, salvaged: 2 });
    expect((await readJsonl(file)).records).toEqual([rec(1), rec(3), rec(4), rec(7), rec(8)]);
    expect(await readFile(repair!.tornFile, "utf8")).toBe(
      [line(2).slice(0, 17), line(5).slice(0, 9) + line(6).slice(0, 40), "garbage without a record", line(9).slice(0, 12)].join("\n") + "\n",
    );
    expect(await repairJsonl(file)).toBeUndefined();
  });

  it("salvageLine keeps the longest suffix that parses (the first from the left): a record with nested objects stays whole", () => {
    const whole = JSON.stringify({ session: "a", turn: "t1", provenance: { via: "llm", label: { raw: "{x}" } }, scores: { a: 1 } });
    const torn = '{"session":"a","tu';
    expect(salvageLine(torn + whole)).toEqual({ kept: whole, torn });
  });

  it("salvageLine: whatever prefix a torn write left, the whole record after it is found (property)", () => {
    fc.assert(
      fc.property(
        fc.record({
          session: fc.string(),
          turn: fc.string(),
          codes: fc.array(fc.string()),
          rationale: fc.string(),
          n: fc.double({ noNaN: true, noDefaultInfinity: true }),
        }),
        fc.record({ session: fc.string(), rationale: fc.string(), nested: fc.dictionary(fc.string(), fc.string()) }),
        fc.nat(),
        (record, other, cut) => {
          const torn = JSON.stringify(other);
          const prefix = torn.slice(0, 1 + (cut % (torn.length - 1)));
          const whole = JSON.stringify(record);
          expect(salvageLine(prefix + whole)).toEqual({ kept: whole, torn: prefix });
        },
      ),
      { numRuns: 500, seed: 42 },
    );
  });

  it("`colloquy repair` fixes a study the old append path left unreadable; `colloquy export` works again", async () => {
    const study = join(dir, "study");
    await initStudy(study);
    const file = join(study, "codes", "bales-ipa", "human%3Aalice.jsonl");
    const code = (n: number) => ({
      session: "s1",
      turn: `t${n}`,
      codebook: "bales-ipa",
      codebookVersion: "1.0.0",
      coder: "human:alice",
      codes: ["agrees"],
      provenance: {},
      createdAt: "2024-01-01T00:00:00.000Z",
    });
    const l = (n: number) => JSON.stringify(code(n));
    await appendJsonl(file, [code(0)]);
    await writeFile(file, `${l(1)}\n${l(2).slice(0, 25)}${l(3)}\n${l(4)}\n`);
    const broken = await runCli(["export", study, "--what", "codes", "--format", "jsonl", "--out", join(dir, "out.jsonl")]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain("human%3Aalice.jsonl:2: not a valid JSON line");
    expect(broken.stderr).toContain(`colloquy repair ${study}`);

    const dry = await runCli(["repair", study, "--dry-run"]);
    expect(dry.stdout).toMatch(
      /codes\/bales-ipa\/human%3Aalice\.jsonl: line 2 was cut short by an interrupted write; its 25 unreadable byte\(s\) would be moved to codes\/bales-ipa\/human%3Aalice\.jsonl\.torn-\S+; 1 complete record\(s\) found after the damage would be kept/,
    );
    expect(dry.stdout).toContain(`${study}: 1 of 1 codes file(s) need repair; run without --dry-run to do it`);
    const fixed = await runCli(["repair", study]);
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(fixed.stdout).toMatch(/its 25 unreadable byte\(s\) were moved to codes\/bales-ipa\/human%3Aalice\.jsonl\.torn-/);
    expect(fixed.stdout).toContain(`${study}: 1 of 1 codes file(s) were repaired`);
    const exported = await runCli(["export", study, "--what", "codes", "--format", "jsonl", "--out", join(dir, "out.jsonl")]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(
      (await readFile(join(dir, "out.jsonl"), "utf8"))
        .trim()
        .split("\n")
        .map((x) => JSON.parse(x).turn),
    ).toEqual(["t1", "t3", "t4"]);
    expect((await runCli(["repair", study])).stdout).toContain("all 1 codes file(s) are readable; nothing to repair");
  });
});

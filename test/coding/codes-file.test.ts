import { appendFile, copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { codeLineSchema, codeRecordSchema, codesFileLineSchema, type CodeRecord } from "../../src/coding/records.js";
import { repairCodesFile } from "../../src/coding/codes-file.js";
import { appendCodes, codesPath, readCodeHistory, readCodes, replaceCodes } from "../../src/coding/store.js";
import { repairJsonl } from "../../src/util/fs.js";

const FIXTURE = join(import.meta.dirname, "../../fixtures/coding/codes-full-records.jsonl");

let dir: string;
let file: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "colloquy-codes-file-"));
  file = codesPath(dir, "bales-ipa", "llm");
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** What one run of the LLM coder shares, as the coder makes it. */
const runProvenance = {
  tool: "colloquy",
  version: "0.9.0",
  createdAt: "2026-11-23T10:00:00.000Z",
  coder: "llm",
  model: "m",
  endpointHost: "h",
  temperature: 0,
};

function record(turn: number, extra: Partial<CodeRecord> = {}): CodeRecord {
  return {
    session: "s1",
    turn: `t${turn}`,
    fingerprint: `f${turn}`,
    codebook: "bales-ipa",
    codebookVersion: "1.0.0",
    coder: "llm",
    codes: ["agrees"],
    provenance: { ...runProvenance, requestHashes: [`h${turn}`] },
    createdAt: new Date(Date.parse("2026-11-23T10:00:01.000Z") + 37 * turn).toISOString(),
    ...extra,
  };
}

const lines = async () =>
  (await readFile(file, "utf8"))
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe("compact codes files", () => {
  it("round trip: every field and time comes back as written, whatever varies per record", async () => {
    const records = [
      record(1, { rationale: "yes", samples: { n: 3, agreement: 0.667 } }),
      record(2, { codes: undefined, scores: { warmth: 4, formality: 2.5 } }),
      record(3, { fingerprint: undefined, createdAt: "2026-11-23 10:00" }),
      record(4, { provenance: { ...runProvenance, requestHashes: ["h4"], reasked: true, temperature: 0.7 } }),
      record(5, { createdAt: "2026-11-23T09:59:59.000Z" }),
    ];
    delete records[1]!.codes;
    delete records[2]!.fingerprint;
    expect(await appendCodes(dir, records)).toEqual([]);
    expect(await readCodeHistory(dir, "bales-ipa", "llm")).toEqual(records);

    const [header, ...rest] = await lines();
    // What the run shares is written once; a key one record changes stays on that record's line.
    expect(header).toEqual({
      run: {
        codebook: "bales-ipa",
        codebookVersion: "1.0.0",
        coder: "llm",
        createdAt: records[0]!.createdAt,
        provenance: { tool: "colloquy", version: "0.9.0", createdAt: "2026-11-23T10:00:00.000Z", coder: "llm", model: "m", endpointHost: "h" },
      },
    });
    expect(rest).toHaveLength(6);
    expect(rest[5]).toEqual({ end: 5 });
    for (const line of rest.slice(0, 5)) for (const key of ["codebook", "codebookVersion", "coder"]) expect(line).not.toHaveProperty(key);
    expect(rest[0]).toEqual({
      session: "s1",
      turn: "t1",
      fingerprint: "f1",
      codes: ["agrees"],
      rationale: "yes",
      samples: { n: 3, agreement: 0.667 },
      provenance: { temperature: 0, requestHashes: ["h1"] },
    });
    expect(rest[1]).toMatchObject({ ms: 37 });
    expect(rest[2]).toMatchObject({ createdAt: "2026-11-23 10:00" });
    expect(rest[3]).toMatchObject({ provenance: { temperature: 0.7, reasked: true, requestHashes: ["h4"] } });
    expect(rest[4]).toMatchObject({ ms: -2037 });
    // Every line is one of the shapes the artifact registry documents.
    for (const line of await lines()) expect(codeLineSchema.safeParse(line).success || !("session" in line)).toBe(true);
  });

  it("is a fraction of the full records' size", async () => {
    const records = Array.from({ length: 200 }, (_v, i) => record(i));
    await appendCodes(dir, records);
    const compact = (await readFile(file)).length;
    const full = Buffer.byteLength(records.map((r) => JSON.stringify(r) + "\n").join(""));
    expect(compact).toBeLessThan(full / 2);
  });

  it("records of one run share one provenance object in memory", async () => {
    const shared = { ...runProvenance };
    await appendCodes(dir, [record(1, { provenance: shared }), record(2, { provenance: shared }), record(3, { provenance: { ...shared, note: "x" } })]);
    await appendCodes(dir, [record(4, { provenance: shared })]);
    const [a, b, c, d] = await readCodeHistory(dir, "bales-ipa", "llm");
    expect(a!.provenance).toBe(b!.provenance);
    expect(c!.provenance).toEqual({ ...shared, note: "x" });
    expect(c!.provenance).not.toBe(a!.provenance);
    // Another append is another run, with its own header.
    expect(d!.provenance).not.toBe(a!.provenance);
    expect(d!.provenance).toEqual(shared);
  });

  it("replaceCodes writes the compact form, one header per run of the history", async () => {
    const runA = [1, 2, 3].map((i) =>
      record(i, { provenance: { via: "colloquy import", source: "a.csv", line: i + 1, label: "1" }, createdAt: "2026-01-01T00:00:00.000Z" }),
    );
    const runB = [4, 5].map((i) =>
      record(i, {
        codebookVersion: "1.1.0",
        provenance: { via: "colloquy import", source: "b.csv", line: i, label: "2" },
        createdAt: "2026-02-01T00:00:00.000Z",
      }),
    );
    await replaceCodes(dir, "bales-ipa", "llm", [...runA, ...runB]);
    const written = await lines();
    expect(written.filter((l) => "run" in l).map((l) => (l.run as { provenance: unknown }).provenance)).toEqual([
      { via: "colloquy import", source: "a.csv", label: "1" },
      { via: "colloquy import", source: "b.csv", label: "2" },
    ]);
    expect(written.filter((l) => "session" in l).every((l) => !("codebook" in l) && !("createdAt" in l) && !("ms" in l))).toBe(true);
    expect(await readCodeHistory(dir, "bales-ipa", "llm")).toEqual([...runA, ...runB]);
    // A rewrite of what was read is byte for byte the same file.
    const before = await readFile(file, "utf8");
    await replaceCodes(dir, "bales-ipa", "llm", await readCodeHistory(dir, "bales-ipa", "llm"));
    expect(await readFile(file, "utf8")).toBe(before);
  });
});

describe("codes files written by earlier versions", () => {
  it("full-record lines read as they always did", async () => {
    await mkdir(dirname(file), { recursive: true });
    await copyFile(FIXTURE, file);
    const expected = (await readFile(FIXTURE, "utf8"))
      .trim()
      .split("\n")
      .map((l) => codeRecordSchema.parse(JSON.parse(l)));
    expect(await readCodeHistory(dir, "bales-ipa", "llm")).toEqual(expected);
    expect(expected[2]!.provenance).toEqual({});
  });

  it("old lines, then new runs appended after them: all read, in order, and a new turn's code wins", async () => {
    await mkdir(dirname(file), { recursive: true });
    await copyFile(FIXTURE, file);
    const old = await readCodeHistory(dir, "bales-ipa", "llm");
    const fresh = [record(1, { session: "team-1", turn: "t0001", codes: ["agrees"] }), record(9)];
    await appendCodes(dir, fresh);
    // The last old line is a whole record: nothing to close before the new run.
    expect((await lines()).slice(4).map((l) => Object.keys(l)[0])).toEqual(["run", "session", "session", "end"]);
    expect(await readCodeHistory(dir, "bales-ipa", "llm")).toEqual([...old, ...fresh]);
    const current = await readCodes(dir, "bales-ipa", "llm");
    expect(current.find((r) => r.session === "team-1" && r.turn === "t0001")!.codes).toEqual(["agrees"]);
    expect(current).toHaveLength(old.length + 1);
  });
});

describe("interrupted writes and damage never move a code to another run", () => {
  const runOne = () => [record(1), record(2)];
  const runTwo = () => [3, 4].map((i) => record(i, { codebookVersion: "2.0.0", provenance: { ...runProvenance, model: "other" } }));

  it("a torn header (the crash cut the next append inside it): the earlier run reads whole; the next append moves the fragment out", async () => {
    await appendCodes(dir, runOne());
    const header = JSON.stringify({ run: { codebook: "bales-ipa", codebookVersion: "2.0.0", coder: "llm", createdAt: "x", provenance: {} } });
    await appendFile(file, header.slice(0, 30));
    expect(await readCodeHistory(dir, "bales-ipa", "llm")).toEqual(runOne());
    const [repair] = await appendCodes(dir, runTwo());
    expect(repair).toMatchObject({ line: 5, bytes: 30, fragments: 1 });
    expect(await readCodeHistory(dir, "bales-ipa", "llm")).toEqual([...runOne(), ...runTwo()]);
  });

  it("a torn code line: the run's whole lines keep their run; the next append closes the cut run before its own", async () => {
    await appendCodes(dir, runOne());
    const text = await readFile(file, "utf8");
    // The crash: the end line and half of the second code line never reached the disk.
    const cut = text.slice(0, text.lastIndexOf('{"session"') + 25);
    await writeFile(file, cut);
    expect(await readCodeHistory(dir, "bales-ipa", "llm")).toEqual([record(1)]);
    const [repair] = await appendCodes(dir, runTwo());
    expect(repair).toMatchObject({ line: 3, bytes: 25 });
    expect((await lines()).map((l) => Object.keys(l)[0])).toEqual(["run", "session", "end", "run", "session", "session", "end"]);
    expect((await lines())[2]).toEqual({ end: "cut" });
    expect(await readCodeHistory(dir, "bales-ipa", "llm")).toEqual([record(1), ...runTwo()]);
  });

  it("a run cut at a line boundary, then a later header lost to damage: its lines stop the read, never join the cut run", async () => {
    await appendCodes(dir, runOne());
    const text = await readFile(file, "utf8");
    await writeFile(file, text.slice(0, text.lastIndexOf('{"end"'))); // the end line never written
    await appendCodes(dir, runTwo());
    // Later damage inside the second header (zeros from a lost disk block).
    const damaged = (await readFile(file, "utf8")).split("\n");
    const at = damaged.findIndex((l, i) => i > 0 && l.startsWith('{"run"'));
    damaged[at] = "\u0000".repeat(12) + damaged[at]!.slice(12);
    await writeFile(file, damaged.join("\n"));
    await expect(readCodeHistory(dir, "bales-ipa", "llm")).rejects.toThrow(`${file}:${at + 1}: not a valid JSON line`);
    // `colloquy repair` moves the damaged header out…
    expect(await repairJsonl(file)).toMatchObject({ line: at + 1, fragments: 1, salvaged: 0 });
    // …and the second run's codes, whose run is now unknown, stop the read naming the first of them.
    await expect(readCodeHistory(dir, "bales-ipa", "llm")).rejects.toThrow(`${file}:${at + 1}: not a code record (a code line outside a run`);
  });
});

describe("sub-turn codings (segments)", () => {
  it("come back as written, beside records without them and full records of older files", async () => {
    const records = [
      record(1),
      record(2, {
        codes: ["agrees", "asks-opinion"],
        segments: [
          { start: 0, end: 4, codes: ["agrees"] },
          { start: 2, end: 9, codes: ["asks-opinion"] },
        ],
      }),
      record(3, { codes: undefined, scores: { warmth: 4 }, segments: [{ start: 1, end: 2, scores: { warmth: 4 } }] }),
    ];
    delete records[2]!.codes;
    await appendCodes(dir, records);
    const old = JSON.stringify({ ...record(4), provenance: {} });
    await appendFile(file, `${old}\n`);
    const read = await readCodeHistory(dir, "bales-ipa", "llm");
    expect(read.slice(0, 3)).toEqual(records);
    expect(read[3]).toEqual({ ...record(4), provenance: {} });
    expect((await lines())[2]).toMatchObject({ turn: "t2", segments: records[1]!.segments });
  });
});

describe("a bad line names the file and the line", () => {
  const header = JSON.stringify({ run: { codebook: "bales-ipa", codebookVersion: "1", coder: "llm", createdAt: "2026-01-01T00:00:00.000Z", provenance: {} } });
  const write = (...body: unknown[]) => writeFile(file, [header, ...body.map((b) => JSON.stringify(b))].join("\n") + "\n");
  beforeEach(() => mkdir(dirname(file), { recursive: true }));

  it.each([
    [{ session: "s", turn: "t", codes: "agrees" }, "codes: expected a list of strings"],
    [{ session: "s", turn: 3 }, "turn: expected a string"],
    [{ session: "s", turn: "t", scores: { warmth: "high" } }, "scores: expected numbers by scale id"],
    [{ session: "s", turn: "t", segments: [{ start: 4, end: "x" }] }, "segments[0]: expected whole-number start and end (code points, 0 or more)"],
    [{ session: "s", turn: "t", samples: { n: 0, agreement: 1 } }, "samples: expected {n: a positive integer, agreement: a number}"],
    [{ session: "s", turn: "t", ms: 1.5 }, "ms: expected whole milliseconds"],
    [{ session: "s", turn: "t", codebook: "bales-ipa", coder: "llm", createdAt: "x" }, "codebookVersion: expected a string"],
    [["s", "t"], "expected a JSON object"],
    [{ run: { codebook: "bales-ipa" } }, "a run header whose codebookVersion is wrong"],
    [{ end: 1.5 }, 'end: expected a whole number of lines (0 or more) or "cut"'],
    [{ end: -1 }, 'end: expected a whole number of lines (0 or more) or "cut"'],
    [{ end: "cuts" }, 'end: expected a whole number of lines (0 or more) or "cut"'],
    [{ end: null }, 'end: expected a whole number of lines (0 or more) or "cut"'],
  ])("%j", async (line, problem) => {
    await write({ session: "s", turn: "t0" }, line);
    await expect(readCodeHistory(dir, "bales-ipa", "llm")).rejects.toThrow(`${file}:3: not a code record (${problem}); fix or move the line`);
  });

  it("the hand check of a line agrees with the zod schema the artifact registry documents, end lines included", async () => {
    const full = (extra: object) =>
      JSON.stringify({ session: "s", turn: "t", codebook: "bales-ipa", codebookVersion: "1", coder: "llm", createdAt: "x", ...extra });
    const cases = [
      '{"end":0}',
      '{"end":"cut"}',
      '{"end":"cut","note":1}',
      '{"end":-1}',
      '{"end":0.5}',
      '{"end":"0"}',
      '{"end":9007199254740993}',
      '{"end":null}',
      '{"end":[]}',
      '{"end":3,"session":"s","turn":"t"}',
      '{"run":{"codebook":"bales-ipa","codebookVersion":"1","coder":"llm","createdAt":"x","provenance":{}}}',
      '{"run":{"codebook":"bales-ipa","codebookVersion":"1","coder":"llm","createdAt":"x","provenance":{}},"session":"s","turn":"t"}',
      '{"run":{"codebook":"bales-ipa"},"session":"s","turn":"t"}',
      '{"run":null}',
      full({}),
      full({ provenance: { a: 1 }, ms: 1.5 }),
      full({ codebookVersion: 1 }),
      full({ codes: "x" }),
      '{"session":"s","turn":"t","codebook":"bales-ipa"}',
      '{"session":"s","turn":"t","codebook":5}',
      '{"session":"s","turn":"t","createdAt":"x","ms":1.5}',
      '{"session":"s","turn":"t","ms":9007199254740993}',
      "{}",
      '{"session":"s","turn":"t"}',
      '{"session":"s","turn":"t","fingerprint":"f","codes":[],"scores":{},"rationale":"","samples":{"n":1,"agreement":0},"provenance":{},"ms":-3}',
      '{"session":"s","turn":"t","fingerprint":1}',
      '{"session":"s","turn":"t","codes":["a"],"segments":[{"start":0,"end":3,"codes":["a"]},{"start":1,"end":2,"scores":{"x":2}}]}',
      '{"session":"s","turn":"t","segments":{}}',
      '{"session":"s","turn":"t","segments":[{"start":-1,"end":3}]}',
      '{"session":"s","turn":"t","segments":[{"start":0.5,"end":3}]}',
      '{"session":"s","turn":"t","segments":[{"start":0,"end":3,"codes":[1]}]}',
      '{"session":"s","turn":"t","segments":[{"start":0,"end":3,"scores":{"x":"high"}}]}',
      '{"session":"s","turn":"t","segments":[null]}',

      '{"session":"s","turn":"t","codes":[1]}',
      '{"session":"s","turn":"t","scores":[]}',
      '{"session":"s","turn":"t","scores":{"a":1e400}}',
      '{"session":"s","turn":"t","rationale":null}',
      '{"session":"s","turn":"t","samples":{"n":2.5,"agreement":1}}',
      '{"session":"s","turn":"t","samples":{"n":2}}',
      '{"session":"s","turn":"t","samples":{"n":9007199254740993,"agreement":1}}',
      '{"session":"s","turn":"t","provenance":[]}',
      '{"session":"s","turn":"t","provenance":null}',
      '{"session":"s","turn":"t","createdAt":5}',
      '{"session":1,"turn":"t"}',
    ];
    for (const line of cases) {
      await writeFile(file, `${header}\n${line}\n`);
      const read = await readCodeHistory(dir, "bales-ipa", "llm").then(
        () => true,
        () => false,
      );
      expect([line, read]).toEqual([line, codesFileLineSchema.safeParse(JSON.parse(line)).success]);
    }
  });
});

describe("appends", () => {
  it("an append of several codebooks and coders writes one run per file", async () => {
    await appendCodes(dir, [record(1), record(2, { coder: "rules" }), record(3), record(4, { codebook: "other" })]);
    const folder = join(dir, "codes");
    expect((await readdir(join(folder, "bales-ipa"))).sort()).toEqual(["llm.jsonl", "rules.jsonl"]);
    expect((await lines()).filter((l) => "run" in l)).toHaveLength(1);
    expect((await readCodeHistory(dir, "bales-ipa", "llm")).map((r) => r.turn)).toEqual(["t1", "t3"]);
    expect((await readCodeHistory(dir, "other", "llm")).map((r) => r.turn)).toEqual(["t4"]);
  });

  it("a record that is not a code record is refused before anything is written", async () => {
    await expect(appendCodes(dir, [record(1), { ...record(2), codes: "agrees" } as unknown as CodeRecord])).rejects.toThrow();
    await expect(readFile(file, "utf8")).rejects.toThrow();
  });
});

describe("records that hold one provenance object", () => {
  it("keep every key when the run's other records differ in some", async () => {
    const own = { ...runProvenance, requestHashes: ["a"] };
    const records = [record(1, { provenance: own }), record(2), record(3, { provenance: own })];
    await appendCodes(dir, records);
    expect((await readCodeHistory(dir, "bales-ipa", "llm")).map((r) => r.provenance)).toEqual(records.map((r) => r.provenance));
  });
});

describe("times", () => {
  it("every time comes back exactly, across seconds, years and the edges of toISOString", async () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const base = Date.parse("2026-11-23T10:00:00.000Z");
    const times = [
      ...Array.from({ length: 300 }, () => base + Math.floor((random() - 0.5) * 20_000)),
      ...Array.from({ length: 50 }, () => Math.floor((random() - 0.5) * 2 * 8.64e15)),
      0,
      -1,
      999,
      1000,
      -1000,
      -1001,
      Date.parse("9999-12-31T23:59:59.999Z"),
      Date.parse("+010000-01-01T00:00:00.000Z"),
      Date.parse("-000001-12-31T23:59:59.999Z"),
    ];
    const records = times.map((t, i) => record(i, { createdAt: new Date(t).toISOString() }));
    await appendCodes(dir, records);
    expect((await readCodeHistory(dir, "bales-ipa", "llm")).map((r) => r.createdAt)).toEqual(records.map((r) => r.createdAt));
    expect((await lines()).filter((l) => "ms" in l).length).toBeGreaterThan(300);
  });
});

describe("a crash anywhere in the last run", () => {
  const runOne = () => [record(1), record(2)];
  // Lines ending in nested objects (provenance, samples, scores), text with braces and quotes.
  const runTwo = () => {
    const records = [
      record(3, { codebookVersion: "2.0.0", rationale: 'says {"a":1} and "b"', samples: { n: 3, agreement: 0.5 } }),
      record(4, { codebookVersion: "2.0.0", scores: { warmth: 2, formality: 1 } }),
      record(5, { codebookVersion: "2.0.0", provenance: { ...runProvenance, requestHashes: ["h5"], rules: { id: ["r4"] } } }),
    ];
    delete records[1]!.codes;
    return records;
  };
  const runThree = () => [record(6, { codebookVersion: "3.0.0", provenance: { other: { nested: true } } })];

  it(
    "at every byte: the file reads after the next append and after repair, no record in a wrong run, every whole line kept",
    { timeout: 120_000 },
    async () => {
      const two = runTwo();
      await appendCodes(dir, runOne());
      const before = Buffer.byteLength(await readFile(file, "utf8"));
      await appendCodes(dir, two);
      const full = await readFile(file, "utf8");
      expect(Buffer.byteLength(full)).toBe(full.length); // ASCII: a byte offset is a character offset
      // The end offset (before its "\n") of each line of the second run: header, code lines, end line.
      const ends: number[] = [];
      for (let at = full.indexOf("\n", before); at >= 0; at = full.indexOf("\n", at + 1)) ends.push(at);
      expect(ends).toHaveLength(two.length + 2);

      for (let cut = before; cut < full.length; cut++) {
        const text = full.slice(0, cut);
        const whole = ends.filter((end) => end <= cut).length; // lines of run two that reached the disk whole
        const kept = two.slice(0, Math.max(0, Math.min(whole - 1, two.length)));
        const wholeText = whole === 0 ? full.slice(0, before) : full.slice(0, ends[whole - 1]! + 1);
        const where = `cut at byte ${cut}: ${JSON.stringify(text.slice(Math.max(before, cut - 40)))}`;

        // The next append heals the torn line, closes the run, and adds its own.
        await writeFile(file, text);
        await appendCodes(dir, runThree());
        expect((await readFile(file, "utf8")).startsWith(wholeText), where).toBe(true);
        expect(await readCodeHistory(dir, "bales-ipa", "llm"), where).toEqual([...runOne(), ...kept, ...runThree()]);

        // `colloquy repair` instead: the same records; an append after it as well.
        await writeFile(file, text);
        await repairCodesFile(file);
        expect((await readFile(file, "utf8")).startsWith(wholeText), where).toBe(true);
        expect(await readCodeHistory(dir, "bales-ipa", "llm"), where).toEqual([...runOne(), ...kept]);
        await appendCodes(dir, runThree());
        expect(await readCodeHistory(dir, "bales-ipa", "llm"), where).toEqual([...runOne(), ...kept, ...runThree()]);
      }
    },
  );
});

describe("lost lines never join a run that is not theirs", () => {
  const runOne = () => [record(1), record(2)];
  const runTwo = () => [3, 4].map((i) => record(i, { codebookVersion: "2.0.0", provenance: { ...runProvenance, model: "other" } }));

  it("an end line and the next header both deleted: the read stops at the end line that counts fewer lines", async () => {
    await appendCodes(dir, runOne());
    await appendCodes(dir, runTwo());
    const text = (await readFile(file, "utf8")).split("\n");
    // Lines: 1 header, 2-3 codes, 4 end, 5 header, 6-7 codes, 8 end.
    await writeFile(file, [...text.slice(0, 3), ...text.slice(5)].join("\n"));
    await expect(readCodeHistory(dir, "bales-ipa", "llm")).rejects.toThrow(
      `${file}:6: not a code record (the run whose header is line 1 ends here after 2 code line(s), but 4 were read`,
    );
  });

  it("an end line and the next header both damaged: repair closes the run in place of each, and the orphaned lines stop the read", async () => {
    await appendCodes(dir, runOne());
    await appendCodes(dir, runTwo());
    const text = (await readFile(file, "utf8")).split("\n");
    for (const i of [3, 4]) text[i] = "\u0000".repeat(8) + text[i]!.slice(8);
    await writeFile(file, text.join("\n"));
    expect(await repairCodesFile(file)).toMatchObject({ line: 4, fragments: 2, salvaged: 0 });
    const repaired = await lines();
    expect(repaired.slice(3, 5)).toEqual([{ end: "cut" }, { end: "cut" }]);
    await expect(readCodeHistory(dir, "bales-ipa", "llm")).rejects.toThrow(`${file}:6: not a code record (a code line outside a run`);
  });

  it("torn lines ending in a nested object keep nothing of it (the reviewer's two cases), with and without the codes-file check", async () => {
    await appendCodes(dir, runOne());
    const [header, code] = (await readFile(file, "utf8")).split("\n");
    for (const torn of [header!.slice(0, -1), code!.slice(0, -1)]) {
      expect(torn.endsWith("}}") || torn.endsWith("]}")).toBe(true);
      await writeFile(file, `${torn}\n`);
      expect(await repairCodesFile(file)).toMatchObject({ fragments: 1, salvaged: 0 });
      expect(await readFile(file, "utf8")).toBe('{"end":"cut"}\n');
      await writeFile(file, `${torn}\n`);
      expect(await repairJsonl(file)).toMatchObject({ fragments: 1, salvaged: 0 });
      expect(await readFile(file, "utf8")).toBe("");
    }
  });
});

describe("a codes file holds one codebook and one coder", () => {
  beforeEach(() => mkdir(dirname(file), { recursive: true }));

  it.each([
    [{ run: { codebook: "other", codebookVersion: "1", coder: "llm", createdAt: "x", provenance: {} } }, 'codebook "other" and coder "llm"'],
    [{ run: { codebook: "bales-ipa", codebookVersion: "1", coder: "rules", createdAt: "x", provenance: {} } }, 'codebook "bales-ipa" and coder "rules"'],
    [
      { session: "s", turn: "t", codebook: "bales-ipa", codebookVersion: "1", coder: "human:alice", createdAt: "x" },
      'codebook "bales-ipa" and coder "human:alice"',
    ],
  ])("a line naming another one stops the read with file:line: %j", async (line, named) => {
    await appendCodes(dir, [record(1)]);
    await appendFile(file, `${JSON.stringify(line)}\n`);
    await expect(readCodeHistory(dir, "bales-ipa", "llm")).rejects.toThrow(
      `${file}:4: not a code record (${named}, but this file holds the codes of codebook "bales-ipa" by coder "llm"`,
    );
  });
});

describe("a codes file is read a line at a time (issue 33)", () => {
  /** A file of several 1 MB read chunks: 8,000 code lines of ~330 bytes, "é", "·" and "😀" in each. */
  const big = async () => {
    const records = Array.from({ length: 8_000 }, (_, i) => record(i, { rationale: `réponse n°${i} 😀 ${"·".repeat(100)}` }));
    await appendCodes(dir, records);
    expect((await stat(file)).size).toBeGreaterThan(2 << 20);
    return records;
  };

  it("reads what it wrote across chunks, characters cut by them included", async () => {
    const records = await big();
    expect(await readCodeHistory(dir, "bales-ipa", "llm")).toEqual(records);
  });

  it("a bad line in the middle of a big file is named by its line number", async () => {
    await big();
    const text = (await readFile(file, "utf8")).split("\n");
    text[5_432] = JSON.stringify({ session: "s1", turn: 7 });
    await writeFile(file, text.join("\n"));
    await expect(readCodeHistory(dir, "bales-ipa", "llm")).rejects.toThrow(`${file}:5433: not a code record (turn: expected a string)`);
    text[5_432] = '{"session":"s1","tu';
    await writeFile(file, text.join("\n"));
    await expect(readCodeHistory(dir, "bales-ipa", "llm")).rejects.toThrow(`${file}:5433: not a valid JSON line`);
  });

  it("CRLF line ends and a last line without its \\n read the same records", async () => {
    const records = await big();
    const text = await readFile(file, "utf8");
    await writeFile(file, text.replaceAll("\n", "\r\n"));
    expect(await readCodeHistory(dir, "bales-ipa", "llm")).toEqual(records);
    await writeFile(file, text.slice(0, -1));
    expect(await readCodeHistory(dir, "bales-ipa", "llm")).toEqual(records);
  });

  it("an empty file and a missing one have no records", async () => {
    expect(await readCodeHistory(dir, "bales-ipa", "llm")).toEqual([]);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, "");
    expect(await readCodeHistory(dir, "bales-ipa", "llm")).toEqual([]);
  });
});

import { beforeAll, describe, expect, it } from "vitest";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runPipeline } from "../../src/pipeline/run.js";
import { studyStages } from "../../src/pipeline/stages.js";
import { buildSite } from "../../src/report/build.js";
import { assembleReport } from "../../src/report/bundle.js";
import { loadStudyData } from "../../src/report/load.js";
import { openSite } from "../../src/report/site.js";
import type { ShapedLines } from "../../src/report/line-cache.js";
import { silentReporter } from "../../src/util/reporter.js";
import { codeVersion } from "../../src/util/code-version.js";
import { openKeyedLog } from "../../src/util/keyed-log.js";

/**
 * The build reads concepts.json's sessions and topics.json's trees by their lines, keeps what it
 * made of each line (.cache/report-lines.v8) and splices those texts into the data file: the data
 * file must be the one a build that parses and shapes every entry writes, byte for byte.
 */
let dir: string;
const analysis = (file: string) => join(dir, "analysis", file);
const cache = () => join(dir, ".cache", "report-lines.v8");
type Shaped = { text: Uint8Array; entries: number };
/** The lines the cache file holds (under this code's version). */
const keptLines = async () => (await openKeyedLog<Shaped>(cache(), codeVersion())).stored;

beforeAll(async () => {
  dir = join(await mkdtemp(join(tmpdir(), "colloquy-lines-")), "demo");
  await cp(join(import.meta.dirname, "../../fixtures/demo-study"), dir, { recursive: true });
  await runPipeline(dir, studyStages, {}, silentReporter);
}, 60_000);

/** The data file's text, creation time masked, and the build's warnings. */
async function build(): Promise<{ data: string; warnings: string[] }> {
  const result = await buildSite(dir);
  const data = await readFile(join(dir, "site", result.files.data), "utf8");
  return { data: data.replace(/"createdAt":"[^"]*"/, ""), warnings: result.warnings };
}

describe("arrays spliced into the data file as text", () => {
  it("write the bytes the entries as objects write, whatever strings the rest holds; a splice with no place fails", async () => {
    const { bundle } = assembleReport(await loadStudyData(dir));
    expect(bundle.concepts?.firstMentions.length).toBeGreaterThan(0);
    // A value holding the marker's text (NULs come in with badly decoded transcripts).
    bundle.concepts!.rates.push({ condition: "lines0\u0000", mean: 1, n: 1 });
    const mentions = bundle.concepts!.firstMentions;
    const data = async (site: string, b: typeof bundle, spliced: ShapedLines[] = []) => {
      const result = await (await openSite(site)).finish(b, spliced);
      return (await readFile(join(site, result.files.data), "utf8")).replace(/"createdAt":"[^"]*"/, "");
    };
    const whole = await data(join(dir, "..", "site-whole"), bundle);
    const texts = [mentions.slice(0, 1), [], mentions.slice(1)].map((list) => Buffer.from(list.map((m) => JSON.stringify(m)).join(",")));
    const spliced = { ...bundle, concepts: { ...bundle.concepts!, firstMentions: [] } };
    expect(await data(join(dir, "..", "site-spliced"), spliced, [{ path: "concepts.firstMentions", texts, entries: mentions.length }])).toBe(whole);
    await expect(data(join(dir, "..", "site-bad"), { ...spliced, concepts: null }, [{ path: "concepts.firstMentions", texts, entries: 1 }])).rejects.toThrow(
      /no object to splice concepts\.firstMentions in/,
    );
    await expect(data(join(dir, "..", "site-bad"), bundle, [{ path: "concepts.firstMentions", texts, entries: 1 }])).rejects.toThrow(/must be an empty array/);
  });
});

describe("analysis files read by their lines in the dashboard build", () => {
  it("give the data file a build that parses every entry gives, with the cache, without it and for a file in another layout", async () => {
    const concepts = await readFile(analysis("concepts.json"), "utf8");
    const topics = await readFile(analysis("topics.json"), "utf8");
    await rm(cache(), { force: true });
    const first = await build();
    const kept = { lines: await keptLines() };
    const sessions = (JSON.parse(concepts) as { sessions: unknown[] }).sessions.length;
    const trees = (JSON.parse(topics) as { trees: unknown[] }).trees.length;
    // And one text per agreement file, shaped whole.
    expect(kept.lines.size).toBe(sessions + trees + 1);
    expect(first.data).toContain('"firstMentions":[{"session"');
    expect((await build()).data).toBe(first.data);

    // Indented whole (no line per entry): read and shaped entry by entry, as before the cache.
    await writeFile(analysis("concepts.json"), JSON.stringify(JSON.parse(concepts), null, 2));
    await writeFile(analysis("topics.json"), JSON.stringify(JSON.parse(topics), null, 2));
    expect((await build()).data).toBe(first.data);
    // Two trees on one line: valid JSON, not one entry per line.
    const lines = topics.split("\n");
    const at = lines.findIndex((l) => l.startsWith('    {"key"'));
    lines.splice(at, 2, `${lines[at]} ${lines[at + 1].trim()}`);
    await writeFile(analysis("topics.json"), lines.join("\n"));
    await writeFile(analysis("concepts.json"), concepts);
    expect((await build()).data).toBe(first.data);
    await writeFile(analysis("topics.json"), topics);
  });

  it("uses a kept line's text (same bytes, same code), and not one kept by another code version", async () => {
    await build();
    const kept = { version: codeVersion(), lines: await keptLines() };
    const key = [...kept.lines.keys()].find((k) => k.startsWith("concepts "))!;
    // The kept lines with one forged, written (appended) under `version`.
    const forged = async (version: string) => {
      const log = await openKeyedLog<Shaped>(cache(), version);
      await log.save(new Map([...kept.lines, [key, { text: Buffer.from('{"session":"forged","concept":"kept","time":1}'), entries: 1 }]]), [key]);
    };
    await forged(kept.version);
    expect((await build()).data).toContain('{"session":"forged","concept":"kept","time":1}');
    await forged("another version");
    expect((await build()).data).not.toContain("forged");
  });

  it("keeps an agreement file's sets while what the view reads of it (provenance aside) is the same, and shapes them again when that changed", async () => {
    const file = analysis("agreement-bales-ipa.json");
    const text = await readFile(file, "utf8");
    try {
      await rm(cache(), { force: true });
      const agreementKeys = async () => [...(await keptLines()).keys()].filter((k) => k.startsWith("agreement "));
      const masked = (data: string) => data.replace(/"createdAt":"[^"]*"/g, "");
      const first = await build();
      const [key] = await agreementKeys();
      expect(key).toBeDefined();
      // Made again with the same sets (another creation time, one more unit coded by one coder): the
      // kept sets, and the data file of a build that reads it whole.
      const units = /"unitsCodedByAny": (\d+)/.exec(text)!;
      await writeFile(
        file,
        text.replace(/"createdAt": "[^"]*"/, '"createdAt": "2030-01-01T00:00:00.000Z"').replace(units[0], `"unitsCodedByAny": ${Number(units[1]) + 1}`),
      );
      const again = await build();
      expect(await agreementKeys()).toEqual([key]);
      expect(masked(again.data)).toBe(masked(first.data));
      expect(again.data).toContain("2030-01-01T00:00:00.000Z");
      await rm(cache(), { force: true });
      expect((await build()).data).toBe(again.data);
      // The same sets with a provenance that is not valid: named as a build that reads it whole names it, and left out.
      await writeFile(file, text.replace(/"createdAt": "[^"]*"/, '"createdAt": 7'));
      const badProvenance = await build();
      expect(badProvenance.warnings.join("\n")).toMatch(/analysis\/agreement-bales-ipa\.json: provenance\.createdAt: /);
      expect(badProvenance.data).toContain('"agreement":[]');
      // The same bytes under another name: its own sets (they name their file).
      await writeFile(file, text);
      await writeFile(analysis("agreement-other.json"), text);
      const twice = await build();
      expect(await agreementKeys()).toHaveLength(2);
      expect(twice.data).toContain('"file":"agreement-other.json"');
      await rm(analysis("agreement-other.json"));
      // Another number: read and shaped again (the kept text is not used).
      const kappa = /"kappa": (-?[\d.]+)/.exec(text)!;
      await writeFile(file, text.replace(kappa[0], '"kappa": 0.123456789'));
      const changed = await build();
      expect(changed.data).toContain('"kappa":0.123456789');
      expect(await agreementKeys()).not.toEqual([key]);
    } finally {
      await writeFile(file, text);
      await rm(analysis("agreement-other.json"), { force: true });
    }
  });

  it("reads only what the agreement view shows of an agreement file, and keeps a file of another kind out", async () => {
    const file = analysis("agreement-bales-ipa.json");
    const text = await readFile(file, "utf8");
    try {
      const clean = await build();
      // Broken where the view does not look: drawn as before (a whole-file reader, loadStudyData, names it).
      const report = JSON.parse(text);
      await writeFile(file, JSON.stringify({ ...report, coverage: 5 }));
      const unread = await build();
      expect(unread.warnings).toEqual(clean.warnings);
      expect(unread.data.replace(/"createdAt":"[^"]*"/g, "")).toBe(clean.data.replace(/"createdAt":"[^"]*"/g, ""));
      expect((await loadStudyData(dir)).warnings.join("\n")).toMatch(/agreement-bales-ipa\.json: coverage/);
      await writeFile(file, JSON.stringify({ ...report, kind: "compare" }));
      const foreign = await build();
      expect(foreign.warnings.join("\n")).toMatch(/analysis\/agreement-bales-ipa\.json: kind: /);
    } finally {
      await writeFile(file, text);
    }
  });

  it("names a broken entry as a build that reads every entry does", async () => {
    const concepts = await readFile(analysis("concepts.json"), "utf8");
    await build();
    // An entry whose first mention has a time that is no number: the file is left out, with the entry's place named.
    const broken = concepts.replace(/("firstMentions":\[\{[^}]*"start":)[-\d.e]+/, '$1"soon"');
    expect(broken).not.toBe(concepts);
    await writeFile(analysis("concepts.json"), broken);
    const { warnings, data } = await build();
    expect(warnings.join("\n")).toMatch(/analysis\/concepts\.json: sessions\[\d+\]\.firstMentions\[0\]\.start: .*noun concepts left out/);
    expect(data).toContain('"concepts":null');
    await writeFile(analysis("concepts.json"), concepts);
  });
});

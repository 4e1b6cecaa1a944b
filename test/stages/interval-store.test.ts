import { describe, expect, it } from "vitest";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deserialize, serialize } from "node:v8";
import { openStudy, runConcepts, runImport, silentEffects } from "../../src/index.js";
import { meanBootstrapInterval, meanIntervals } from "../../src/analysis/concepts/conditions.js";
import { loadMeanIntervals, saveMeanIntervals } from "../../src/analysis/concepts/interval-store.js";

const demo = join(import.meta.dirname, "../../fixtures/demo-study");

const forget = () => {
  meanIntervals.known.clear();
  meanIntervals.used.clear();
};

describe("bootstrap intervals of condition means kept between runs (.cache/mean-intervals.v8)", () => {
  it("are written by a concepts run and give the same report; a kept interval is used, one from another version is not", async () => {
    const dir = join(await mkdtemp(join(tmpdir(), "colloquy-intervals-")), "demo");
    await cp(demo, dir, { recursive: true });
    const study = await openStudy(dir);
    await runImport(study, { paths: [join(dir, "inbox")], pathPattern: study.config.import.pathPattern }, silentEffects);
    forget();
    await runConcepts(study, {}, silentEffects);
    const report = await readFile(join(dir, "analysis", "concepts.json"), "utf8");
    const path = join(dir, ".cache", "mean-intervals.concepts.v8");
    const stored = deserialize(await readFile(path)) as { version: string; intervals: [string, [number, number]][] };
    expect(stored.intervals.length).toBeGreaterThan(0);
    expect(stored.intervals.length).toBe(meanIntervals.used.size);

    // A fresh process with the kept intervals writes the same file, bootstrapping nothing (it knows no interval but the kept ones).
    forget();
    await runConcepts(study, {}, silentEffects);
    expect(meanIntervals.known.size).toBe(stored.intervals.length);
    const strip = (text: string) => text.replace(/"createdAt": "[^"]+"/g, "");
    expect(strip(await readFile(join(dir, "analysis", "concepts.json"), "utf8"))).toBe(strip(report));

    // The kept interval is what is used (forged here to show it), under the same code version only.
    const values = [1, 2, 3, 4, 5];
    forget();
    const fresh = meanBootstrapInterval(values);
    const key = [...meanIntervals.used][0];
    const forged = (version: string) => writeFile(path, serialize({ version, intervals: [[key, [-7, 7]]] }));
    await forged(stored.version);
    forget();
    await loadMeanIntervals(dir, "concepts");
    expect(meanBootstrapInterval(values)).toEqual([-7, 7]);
    await forged("another version");
    forget();
    await loadMeanIntervals(dir, "concepts");
    expect(meanBootstrapInterval(values)).toEqual(fresh);

    // Only the intervals used are written, and only when the file lacks one of them.
    await saveMeanIntervals(dir, "concepts");
    expect((deserialize(await readFile(path)) as typeof stored).intervals).toEqual([[key, fresh]]);
    await rm(path);
    await saveMeanIntervals(dir, "concepts");
    await expect(readFile(path)).rejects.toThrow();
    await writeFile(path, "torn");
    // What another study used in this process is not written to this one's file.
    forget();
    meanBootstrapInterval([9, 8, 7, 6]);
    const other = join(dir, "..", "other");
    await loadMeanIntervals(other, "concepts");
    meanBootstrapInterval(values);
    await saveMeanIntervals(other, "concepts");
    expect((deserialize(await readFile(join(other, ".cache", "mean-intervals.concepts.v8"))) as typeof stored).intervals).toEqual([[key, fresh]]);
    await expect(loadMeanIntervals(dir, "concepts")).resolves.toBeUndefined();
  });
});

import { join } from "node:path";
import { codeVersion } from "../../util/code-version.js";
import { readStampedFile, writeStampedFile } from "../../util/stamped-file.js";
import { meanIntervals } from "./conditions.js";

/**
 * The bootstrap intervals of condition means (conditions.ts, meanIntervals), kept between runs in
 * `<study>/.cache/mean-intervals.v8` for the concepts and topics stages, under the code version
 * that computed them (util/code-version.ts). The file holds the intervals the last run used, so
 * it does not grow with every run; a missing, torn or foreign file is ignored, and deleting
 * .cache/ is safe.
 */
const path = (study: string) => join(study, ".cache", "mean-intervals.v8");

/** The keys the study's file holds (as read or last written). */
const inFile = new Map<string, Set<string>>();

/** Add the intervals kept by earlier runs of this study (intervals already known win). */
export async function loadMeanIntervals(study: string): Promise<void> {
  const keys = new Set<string>();
  inFile.set(study, keys);
  const list = (await readStampedFile<{ intervals: unknown }>(path(study), "version", codeVersion()))?.intervals;
  if (!Array.isArray(list)) return;
  for (const entry of list as unknown[]) {
    if (!Array.isArray(entry) || typeof entry[0] !== "string" || !isInterval(entry[1])) continue;
    keys.add(entry[0]);
    if (!meanIntervals.known.has(entry[0])) meanIntervals.known.set(entry[0], [entry[1][0], entry[1][1]]);
  }
}

const isInterval = (v: unknown): v is [number, number] => Array.isArray(v) && v.length === 2 && v.every((n) => typeof n === "number");

/** Write the intervals used in this process when the study's file lacks one of them. */
export async function saveMeanIntervals(study: string): Promise<void> {
  const keys = inFile.get(study) ?? new Set();
  if ([...meanIntervals.used].every((key) => keys.has(key))) return;
  await writeStampedFile(path(study), "version", codeVersion(), {
    intervals: [...meanIntervals.used].map((key) => [key, meanIntervals.known.get(key)]),
  });
  inFile.set(study, new Set(meanIntervals.used));
}

import { join } from "node:path";
import { codeVersion } from "../../util/code-version.js";
import { readStampedFile, writeStampedFile } from "../../util/stamped-file.js";
import { MAX_KNOWN_INTERVALS, meanIntervals } from "./conditions.js";

/**
 * The bootstrap intervals of condition means (conditions.ts, meanIntervals), kept between runs
 * per stage in `<study>/.cache/mean-intervals.<stage>.v8` (concepts and topics), under the code
 * version that computed them (util/code-version.ts). Each file holds the intervals its stage used
 * since it loaded them for that study, so it does not grow with every run and holds no other
 * study's; a missing, torn or foreign file is ignored, and deleting .cache/ is safe.
 */
export type IntervalStage = "concepts" | "topics";

const path = (study: string, stage: IntervalStage) => join(study, ".cache", `mean-intervals.${stage}.v8`);

/** The keys each file holds (as read or last written), by path. */
const inFile = new Map<string, Set<string>>();

/** Add the intervals the stage kept for this study (intervals already known win), and start counting those it uses. */
export async function loadMeanIntervals(study: string, stage: IntervalStage): Promise<void> {
  meanIntervals.used.clear();
  const file = path(study, stage);
  const keys = new Set<string>();
  inFile.set(file, keys);
  const list = (await readStampedFile<{ intervals: unknown }>(file, "version", codeVersion()))?.intervals;
  if (!Array.isArray(list)) return;
  for (const entry of list as unknown[]) {
    if (meanIntervals.known.size >= MAX_KNOWN_INTERVALS) break;
    if (!Array.isArray(entry) || typeof entry[0] !== "string" || !isInterval(entry[1])) continue;
    keys.add(entry[0]);
    if (!meanIntervals.known.has(entry[0])) meanIntervals.known.set(entry[0], [entry[1][0], entry[1][1]]);
  }
}

const isInterval = (v: unknown): v is [number, number] => Array.isArray(v) && v.length === 2 && v.every((n) => typeof n === "number");

/** Write the intervals used since the load when the stage's file lacks one of them. */
export async function saveMeanIntervals(study: string, stage: IntervalStage): Promise<void> {
  const file = path(study, stage);
  const keys = inFile.get(file) ?? new Set();
  if ([...meanIntervals.used].every((key) => keys.has(key))) return;
  await writeStampedFile(file, "version", codeVersion(), {
    intervals: [...meanIntervals.used].map((key) => [key, meanIntervals.known.get(key)]),
  });
  inFile.set(file, new Set(meanIntervals.used));
}

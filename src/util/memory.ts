import { getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * Batch jobs that go through a corpus file by file (import) hold one file's data at a time, but
 * V8 lets garbage pile up to ~100 MB before a full collection, so the process's peak memory
 * tracks that slack rather than what is alive. Asking for a full collection every few MB of
 * input keeps the peak near one file's working set, at the cost of a few milliseconds each time.
 * `--expose-gc` is switched on at run time only to make `gc` callable; it changes nothing else.
 */
let gc: (() => void) | undefined | null = null;

/**
 * A collection costs about as much as what is alive (100-560 ms at 100,000 turns) whatever it
 * frees, so it is skipped when the heap has grown by less than this since the last one: then
 * there is little to free. Measured with `--trace-gc` on a generated 100,000-turn study (issue 33):
 * in `colloquy build`, the collection that came after 21 MB of growth freed 2-4 MB (105 -> 101 MB
 * in use) for 150-410 ms; the others came after 40-73 MB and freed 16-72 MB (but the first, at
 * 34 MB in use, which frees little and costs 15-100 ms); in a +1 run, the one after 21-27 MB of
 * growth freed 5-10 MB. Skipping those left every peak as it was (build 251-256 MB, code stage
 * 365 MB; docs/benchmarks.md, "fifth pass"); skipping more would skip collections that free 40 MB.
 * It assumes what was alive after the last collection is still alive: data let go after it and
 * collected by V8 on its own leaves room for garbage the rule does not see, until V8's own schedule
 * (which then sets its next limit from the smaller heap) collects it.
 */
const MIN_GROWTH_BYTES = 32 * 1024 * 1024;

/**
 * `collect` only where it may buy memory: when `heapUsed()` has grown by `minGrowth` bytes or more
 * since what was in use right after the last collection this made.
 */
export function growthCollector(collect: () => void, heapUsed: () => number, minGrowth = MIN_GROWTH_BYTES): () => void {
  let afterLast = 0;
  return () => {
    if (heapUsed() - afterLast < minGrowth) return;
    collect();
    afterLast = heapUsed();
  };
}

const collectIfGrown = growthCollector(
  () => gc?.(),
  () => getHeapStatistics().used_heap_size,
);

/** A full collection now, when the heap grew since the last one (and the runtime allows it): call it where a large piece of work let its data go. */
export function collectGarbage(): void {
  if (gc === null) {
    try {
      setFlagsFromString("--expose-gc");
      gc = runInNewContext("gc") as () => void;
    } catch {
      gc = undefined; // another runtime: fall back to V8's own schedule
    }
  }
  if (gc) collectIfGrown();
}

/** Returns `processed(bytes)`: call it after each unit of input; it collects every `everyBytes`. */
export function garbageBudget(everyBytes = 8 * 1024 * 1024): (bytes: number) => void {
  let since = 0;
  return (bytes) => {
    since += bytes;
    if (since >= everyBytes) {
      since = 0;
      collectGarbage();
    }
  };
}

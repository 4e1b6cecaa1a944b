import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * Batch jobs that go through a corpus file by file (import) hold one file's data at a time, but
 * V8 lets garbage pile up to ~100 MB before a full collection, so the process's peak memory
 * tracks that slack rather than what is alive. Asking for a full collection every few MB of
 * input keeps the peak near one file's working set, at the cost of a few milliseconds each time.
 * `--expose-gc` is switched on at run time only to make `gc` callable; it changes nothing else.
 */
let gc: (() => void) | undefined | null = null;

/** A full collection now (when the runtime allows it): call it where a large piece of work let its data go. */
export function collectGarbage(): void {
  if (gc === null) {
    try {
      setFlagsFromString("--expose-gc");
      gc = runInNewContext("gc") as () => void;
    } catch {
      gc = undefined; // another runtime: fall back to V8's own schedule
    }
  }
  gc?.();
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

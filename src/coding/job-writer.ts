import { join } from "node:path";
import { appendCodes, appendFailures } from "./store.js";
import type { CodeFailure, CodeRecord } from "./records.js";
import { CliError, errorMessage } from "../util/errors.js";
import type { JsonlRepair } from "../util/fs.js";

export interface WriterOptions {
  /** Flush once this many records and failures are waiting. */
  every: number;
  /** …or this many ms after the first one arrived. */
  everyMs: number;
  /** A torn line was healed before an append (tell the user). */
  onRepair?: (repair: JsonlRepair) => void;
  /** An append failed (disk full…): the caller should stop asking for more work. */
  onError?: (error: CliError) => void;
  /**
   * The `session\u0000turn` keys whose storing `stored` reports: the turns of earlier failures,
   * which the end of the run prunes. Not every turn: 100,000 keys held for a failures file that is
   * usually empty were a tenth of a collect's live memory (issue 40).
   */
  watch?: ReadonlySet<string>;
}

/**
 * Appends records and failures in small batches, in completion order. One append is in flight
 * at a time; what arrives meanwhile is written by the next one, as one batch (so a burst, e.g.
 * the offline rule coder, costs a few writes and syncs, not one per 50 records). After a failed
 * append nothing more is written and every later flush rejects with that error.
 */
export function createWriter(study: string, options: WriterOptions) {
  let codes: CodeRecord[] = [];
  let failures: CodeFailure[] = [];
  let draining: Promise<void> | undefined;
  let failed: CliError | undefined;
  let timer: NodeJS.Timeout | undefined;
  /** `session\u0000turn` of the code records on disk (appended by this writer) whose key is watched. */
  const stored = new Set<string>();

  const drain = async () => {
    while (!failed && (codes.length > 0 || failures.length > 0)) {
      const c = codes;
      const f = failures;
      codes = [];
      failures = [];
      try {
        for (const repair of await appendCodes(study, c)) options.onRepair?.(repair);
        if (options.watch?.size)
          for (const record of c) {
            const key = `${record.session}\u0000${record.turn}`;
            if (options.watch.has(key)) stored.add(key);
          }
        for (const repair of await appendFailures(study, f)) options.onRepair?.(repair);
      } catch (error) {
        failed = writeError(study, error, c.length);
        options.onError?.(failed);
      }
    }
  };

  /** Resolves when everything queued so far is on disk; rejects if an append failed. */
  const flush = async (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    for (;;) {
      draining ??= drain().finally(() => (draining = undefined));
      await draining;
      if (failed) throw failed;
      if (codes.length === 0 && failures.length === 0) return;
    }
  };
  // Background flushes report through onError and the final flush; never as unhandled rejections.
  const background = () => void flush().catch(() => undefined);
  const schedule = () => {
    if (codes.length + failures.length >= options.every) background();
    else timer ??= setTimeout(background, options.everyMs);
  };
  return {
    code(record: CodeRecord) {
      codes.push(record);
      schedule();
    },
    failure(failure: CodeFailure) {
      failures.push(failure);
      schedule();
    },
    flush,
    stored,
  };
}

const NO_SPACE = new Set(["ENOSPC", "EFBIG", "EDQUOT"]);

function writeError(study: string, error: unknown, records: number): CliError {
  const code = (error as NodeJS.ErrnoException).code;
  const cause = code && NO_SPACE.has(code) ? `no space to write (${code}: the disk is full or a file size limit was reached)` : errorMessage(error);
  return new CliError(
    `could not store code records in ${join(study, "codes")}: ${cause}. ` +
      `The codes files were left as they were before this write; the ${records} turn(s) of that batch and any later ones were not stored ` +
      `and will be coded on the next run (replies already in the response cache are not paid for again). ` +
      `Free some space and run the same command again.`,
    { cause: error },
  );
}

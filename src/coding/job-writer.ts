import { appendCodes, appendFailures } from "./store.js";
import type { CodeFailure, CodeRecord } from "./records.js";

/** Appends records and failures in small batches, one append at a time, in completion order. */
export function createWriter(study: string, every: number, everyMs: number) {
  let codes: CodeRecord[] = [];
  let failures: CodeFailure[] = [];
  let chain: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const c = codes;
    const f = failures;
    codes = [];
    failures = [];
    if (c.length > 0 || f.length > 0) chain = chain.then(async () => {
      await appendCodes(study, c);
      await appendFailures(study, f);
    });
    return chain;
  };
  const schedule = () => {
    if (codes.length + failures.length >= every) void flush();
    else timer ??= setTimeout(() => void flush(), everyMs);
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
  };
}

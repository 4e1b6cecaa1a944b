/**
 * Retry timing: exponential backoff with full jitter (AWS architecture blog, "Exponential
 * backoff and jitter"), except that a server's own `Retry-After` / `retry-after-ms` wins.
 */

export interface BackoffOptions {
  /** First retry's ceiling in ms; doubles each attempt. */
  baseMs: number;
  /** Ceiling of any computed delay in ms. */
  maxMs: number;
  random?: () => number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 500, maxMs: 30_000 };

/** Longest server-requested wait we honour (ms); beyond it we give up rather than stall a run. */
export const MAX_RETRY_AFTER_MS = 5 * 60_000;

/** Full jitter: uniform in [0, min(max, base * 2^attempt)]. `attempt` is 0 for the first retry. */
export function backoffDelay(attempt: number, options: BackoffOptions = DEFAULT_BACKOFF): number {
  const ceiling = Math.min(options.maxMs, options.baseMs * 2 ** attempt);
  return Math.round((options.random ?? Math.random)() * ceiling);
}

/** Minimal view of response headers (fetch Headers or a plain record). */
export type HeaderSource = { get(name: string): string | null } | Record<string, string | undefined> | undefined;

function header(headers: HeaderSource, name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as { get?: unknown }).get === "function") {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const record = headers as Record<string, string | undefined>;
  const match = Object.keys(record).find((k) => k.toLowerCase() === name);
  return match ? record[match] : undefined;
}

/**
 * Wait requested by the server, in ms: `retry-after-ms` (ms), else `Retry-After` as seconds
 * or as an HTTP date. Undefined when absent or unparseable.
 */
export function retryAfterMs(headers: HeaderSource, now: number = Date.now()): number | undefined {
  const ms = header(headers, "retry-after-ms");
  if (ms !== undefined && ms.trim() !== "" && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = header(headers, "retry-after");
  if (value === undefined || value.trim() === "") return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Math.max(0, Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Clock times without a date ("6:35 PM", "18:35", a bare "6:37" continuation) and media
 * offsets ("00:01:23.500", "01:23:45,678", "1:23"). Slack pastes only carry wall-clock times,
 * so a session's turn `start` is computed as seconds since its first time, across AM/PM and
 * midnight.
 */

const DAY = 24 * 3600;
const HALF_DAY = 12 * 3600;
/** A backwards jump larger than this is read as crossing midnight; smaller ones as out-of-order posts. */
const ROLLOVER_THRESHOLD = 6 * 3600;

/** A parsed wall-clock time. `ambiguous` when it has no AM/PM and could be either half of the day. */
export interface ClockTime {
  /** Seconds since midnight (for ambiguous times: the AM reading). */
  secondsOfDay: number;
  ambiguous: boolean;
}

const clockPattern = /^(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([AaPp])\.?\s*[Mm]\.?$/;
const bareClockPattern = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/;

/** Parse "6:35 PM", "6:35pm", "12:05 AM", "18:35", "6:37" (ambiguous); undefined if not a clock time. */
export function parseClock(text: string): ClockTime | undefined {
  const s = text.trim();
  const withPeriod = clockPattern.exec(s);
  if (withPeriod) {
    const h = Number(withPeriod[1]);
    const m = Number(withPeriod[2]);
    const sec = Number(withPeriod[3] ?? 0);
    if (h < 1 || h > 12 || m > 59 || sec > 59) return undefined;
    const pm = withPeriod[4]!.toLowerCase() === "p";
    // 12 AM is midnight, 12 PM is noon.
    const hours = (h % 12) + (pm ? 12 : 0);
    return { secondsOfDay: hours * 3600 + m * 60 + sec, ambiguous: false };
  }
  const bare = bareClockPattern.exec(s);
  if (bare) {
    const h = Number(bare[1]);
    const m = Number(bare[2]);
    const sec = Number(bare[3] ?? 0);
    if (h > 23 || m > 59 || sec > 59) return undefined;
    // 0:xx and 13:xx-23:xx can only be 24-hour readings; 1..12 may be either half of the day.
    const ambiguous = h >= 1 && h <= 12;
    return { secondsOfDay: (ambiguous ? h % 12 : h) * 3600 + m * 60 + sec, ambiguous };
  }
  return undefined;
}

/**
 * Places successive clock times on one timeline: seconds since the first time placed.
 * Ambiguous times take the reading closest after the previous time; a backwards jump of more
 * than 6 hours counts as crossing midnight.
 */
export class ClockTimeline {
  private origin: number | undefined;
  /** Absolute seconds (day offset included) of the last time placed. */
  private last: number | undefined;

  place(time: ClockTime): number {
    if (this.last === undefined) {
      // An ambiguous first time ("6:37") is read as written; later times are relative to it.
      this.origin = time.secondsOfDay;
      this.last = time.secondsOfDay;
      return 0;
    }
    const last = this.last;
    const dayStart = Math.floor(last / DAY) * DAY;
    const readings = time.ambiguous ? [time.secondsOfDay, time.secondsOfDay + HALF_DAY] : [time.secondsOfDay];
    // The earliest reading not more than the threshold before `last`: small backward steps stay
    // on the same day (out-of-order posts), larger ones move to the next day (midnight).
    let best: number | undefined;
    for (const offset of [dayStart, dayStart + DAY]) {
      for (const r of readings) {
        const candidate = offset + r;
        if (candidate < last - ROLLOVER_THRESHOLD) continue;
        if (best === undefined || candidate < best) best = candidate;
      }
    }
    const placed = best ?? last;
    this.last = Math.max(last, placed);
    return placed - this.origin!;
  }
}

/**
 * Media offsets to seconds: "00:01:23.500", "01:23:45,678" (SRT), "1:23" (m:ss), "83.5".
 * Undefined when the text is not an offset.
 */
export function parseOffset(text: string): number | undefined {
  const s = text.trim();
  const m = /^(?:(\d+):)?(\d{1,2}):(\d{2})(?:[.,](\d{1,3}))?$/.exec(s);
  if (m) {
    const hours = Number(m[1] ?? 0);
    const minutes = Number(m[2]);
    const seconds = Number(m[3]);
    if (seconds > 59 || (m[1] !== undefined && minutes > 59)) return undefined;
    const fraction = m[4] ? Number(m[4].padEnd(3, "0")) / 1000 : 0;
    return hours * 3600 + minutes * 60 + seconds + fraction;
  }
  if (/^\d+(?:\.\d+)?$/.test(s)) return Number(s);
  return undefined;
}

import { describe, expect, it } from "vitest";
import { ClockTimeline, parseClock, parseOffset } from "../../src/ingest/clock.js";

const place = (times: string[]): number[] => {
  const timeline = new ClockTimeline();
  return times.map((t) => timeline.place(parseClock(t)!));
};

describe("parseClock", () => {
  it("reads 12-hour times with AM/PM, including 12 AM (midnight) and 12 PM (noon)", () => {
    expect(parseClock("6:35 PM")).toEqual({ secondsOfDay: 18 * 3600 + 35 * 60, ambiguous: false });
    expect(parseClock("12:05 AM")!.secondsOfDay).toBe(5 * 60);
    expect(parseClock("12:05 PM")!.secondsOfDay).toBe(12 * 3600 + 5 * 60);
    expect(parseClock("9:07am")!.secondsOfDay).toBe(9 * 3600 + 7 * 60);
    expect(parseClock("  10:02 AM ")!.secondsOfDay).toBe(10 * 3600 + 2 * 60);
  });
  it("marks bare 1..12 o'clock times ambiguous and reads 0:xx / 13:xx+ as 24-hour", () => {
    expect(parseClock("6:37")!.ambiguous).toBe(true);
    expect(parseClock("18:05")).toEqual({ secondsOfDay: 18 * 3600 + 5 * 60, ambiguous: false });
    expect(parseClock("0:15")).toEqual({ secondsOfDay: 15 * 60, ambiguous: false });
  });
  it("rejects non-times", () => {
    for (const s of ["13:00 PM", "6:75 PM", "25:00", "hello", "6 PM", "0:30 AM"]) expect(parseClock(s)).toBeUndefined();
  });
});

describe("ClockTimeline", () => {
  it("counts seconds from the first time across noon", () => {
    expect(place(["11:45 AM", "11:46 AM", "12:10 PM", "1:02 PM"])).toEqual([0, 60, 25 * 60, 77 * 60]);
  });
  it("crosses midnight forward instead of going back 24 hours", () => {
    expect(place(["11:58 PM", "11:59 PM", "12:01 AM", "12:03 AM"])).toEqual([0, 60, 180, 300]);
  });
  it("reads a bare continuation time in the half of the day that follows the previous time", () => {
    expect(place(["6:35 PM", "6:37"])).toEqual([0, 120]);
    expect(place(["11:50 AM", "1:05"])).toEqual([0, 75 * 60]);
    expect(place(["11:59 PM", "12:02"])).toEqual([0, 180]);
  });
  it("keeps a slightly out-of-order post on the same day (negative offset), not a day later", () => {
    expect(place(["6:35 PM", "6:36 PM", "6:34 PM"])).toEqual([0, 60, -60]);
  });
});

describe("parseOffset", () => {
  it("reads VTT, SRT, m:ss and seconds", () => {
    expect(parseOffset("00:01:23.500")).toBe(83.5);
    expect(parseOffset("01:02:03,040")).toBeCloseTo(3723.04, 6);
    expect(parseOffset("1:23")).toBe(83);
    expect(parseOffset("83.25")).toBe(83.25);
    expect(parseOffset("00:61")).toBeUndefined();
    expect(parseOffset("soon")).toBeUndefined();
  });
});

import { describe, expect, it } from "vitest";
import { consoleReporter } from "../../src/util/reporter.js";

/** A terminal that records what was written to it. */
function terminal(): NodeJS.WriteStream & { written: string } {
  const out = {
    isTTY: true,
    written: "",
    write(chunk: string) {
      out.written += chunk;
      return true;
    },
  };
  return out as unknown as NodeJS.WriteStream & { written: string };
}

describe("consoleReporter on a terminal", () => {
  it("redraws the bar at most ten times a second, and always draws the end", () => {
    const stream = terminal();
    let clock = 0;
    const reporter = consoleReporter({ stream, ci: false, now: () => clock });
    // 48,000 turns reported in 4.8 simulated seconds (one every 0.1 ms).
    for (let done = 0; done <= 48_000; done++) {
      reporter.progress("coding", done, 48_000);
      clock += 0.1;
    }
    const draws = stream.written.split("\r").length - 1;
    expect(draws).toBeLessThanOrEqual(50);
    expect(draws).toBeGreaterThanOrEqual(40);
    expect(stream.written).toContain("48000/48000");
    expect(stream.written.length).toBeLessThan(5_000);
  });

  it("a log line clears the bar first, so lines never mix", () => {
    const stream = terminal();
    const reporter = consoleReporter({ stream, ci: false, now: () => 0 });
    reporter.progress("coding", 1, 10);
    reporter.log("hello");
    expect(stream.written).toBe(`\rcoding [${"#".repeat(3)}${"-".repeat(27)}] 1/10\r\x1b[Khello\n`);
  });
});

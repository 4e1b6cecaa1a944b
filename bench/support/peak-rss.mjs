// Preload for benchmark children (`node --import <this file> bin/colloquy.js ...`): at exit, write
// the process's peak resident set size and CPU time to the file named by COLLOQUY_BENCH_RSS_FILE,
// as JSON {maxRSS (KiB on Linux and macOS), user, system (microseconds)} from
// process.resourceUsage(). 'exit' also fires on process.exit() and after an uncaught error.
import { writeFileSync } from "node:fs";

const file = process.env.COLLOQUY_BENCH_RSS_FILE;
if (file) {
  process.on("exit", () => {
    const { maxRSS, userCPUTime, systemCPUTime } = process.resourceUsage();
    writeFileSync(file, JSON.stringify({ maxRSS, user: userCPUTime, system: systemCPUTime }));
  });
}

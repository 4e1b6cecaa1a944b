/**
 * Effects injected into every stage: `log` for human-readable lines, `progress` for counters.
 * The CLI picks the implementation: a redrawn bar on a terminal, milestone lines in CI
 * (CI=true or no TTY), nothing in tests.
 */
export interface Reporter {
  log(message: string): void;
  warn(message: string): void;
  /** Report `done` of `total` units for a named task; implementations throttle output. */
  progress(task: string, done: number, total: number): void;
}

export const silentReporter: Reporter = { log() {}, warn() {}, progress() {} };

/** Collects lines in memory; handy in tests that assert on what a stage said. */
export function memoryReporter(): Reporter & { lines: string[]; warnings: string[] } {
  const lines: string[] = [];
  const warnings: string[] = [];
  return { lines, warnings, log: (m) => lines.push(m), warn: (m) => warnings.push(m), progress() {} };
}

/** Reporter writing to stderr: a bar redrawn in place on a TTY, every 10% as a line otherwise. */
export function consoleReporter(options: { stream?: NodeJS.WriteStream; ci?: boolean; now?: () => number } = {}): Reporter {
  const stream = options.stream ?? process.stderr;
  const now = options.now ?? (() => performance.now());
  // The bar is redrawn at most every 100 ms (a coding run reports every turn: 48,000 redraws
  // wrote 7 MB to the terminal), and always at the end.
  let lastDraw = -Infinity;
  const interactive = !(options.ci ?? process.env.CI === "true") && Boolean(stream.isTTY);
  const lastDecile = new Map<string, number>();
  let barVisible = false;
  const clearBar = () => {
    if (barVisible) stream.write("\r\x1b[K");
    barVisible = false;
  };
  return {
    log(message) {
      clearBar();
      stream.write(message + "\n");
    },
    warn(message) {
      clearBar();
      stream.write(`warning: ${message}\n`);
    },
    progress(task, done, total) {
      if (total <= 0) return;
      const fraction = Math.min(1, done / total);
      if (interactive) {
        if (done < total && now() - lastDraw < 100) return;
        lastDraw = now();
        const width = 30;
        const filled = Math.round(fraction * width);
        stream.write(`\r${task} [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${done}/${total}`);
        barVisible = done < total;
        if (done >= total) stream.write("\n");
        return;
      }
      const decile = Math.floor(fraction * 10);
      if (decile !== lastDecile.get(task) && (decile > 0 || done === 0)) {
        lastDecile.set(task, decile);
        stream.write(`${task}: ${done}/${total} (${Math.round(fraction * 100)}%)\n`);
      }
    },
  };
}

import { consoleReporter, type Reporter } from "../util/reporter.js";

/**
 * Where the CLI writes. Commands print only through these so tests can run the CLI in-process
 * and capture its output (see test/support/cli.ts).
 */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  reporter(): Reporter;
}

const processIo: CliIo = {
  out: (text) => void process.stdout.write(text.endsWith("\n") ? text : text + "\n"),
  err: (text) => void process.stderr.write(text.endsWith("\n") ? text : text + "\n"),
  reporter: () => consoleReporter(),
};

let current: CliIo = processIo;

export function io(): CliIo {
  return current;
}

/** Swap the CLI's output for the duration of `fn` (tests). */
export async function withIo<T>(replacement: CliIo, fn: () => Promise<T>): Promise<T> {
  const previous = current;
  current = replacement;
  try {
    return await fn();
  } finally {
    current = previous;
  }
}

/** Print a value as JSON on stdout (for --json). */
export function printJson(value: unknown): void {
  current.out(JSON.stringify(value, null, 2));
}

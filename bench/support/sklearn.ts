import { spawnSync } from "node:child_process";
import { join } from "node:path";

/**
 * The scikit-learn baseline of issue 35 (bench/support/sklearn-baseline.py), run on the learned
 * coder's own splits when a python3 with scikit-learn is on the machine (optional: the benchmark
 * prints the figures alone without it).
 */

/** One training set and the texts to code with it. */
export interface BaselineTask {
  train: { text: string; code: string; group: string }[];
  test: string[];
}

/** Codes for a task's test texts: scikit-learn's defaults, and balanced classes with C chosen by grouped CV. */
export interface BaselineCodes {
  defaults: string[];
  tuned: string[];
  c: number;
}

/** A python3 that imports scikit-learn: $COLLOQUY_PYTHON, then python3 on the PATH, then Debian's. */
export function findSklearnPython(): string | undefined {
  return [process.env.COLLOQUY_PYTHON, "python3", "/usr/bin/python3"].find(
    (candidate) => candidate !== undefined && spawnSync(candidate, ["-c", "import sklearn"], { stdio: "ignore" }).status === 0,
  );
}

export function runSklearnBaseline(python: string, tasks: readonly BaselineTask[]): { version: string; tasks: BaselineCodes[] } {
  const run = spawnSync(python, [join(import.meta.dirname, "sklearn-baseline.py")], {
    input: JSON.stringify({ tasks }),
    encoding: "utf8",
    maxBuffer: 1 << 28,
  });
  if (run.status !== 0) throw new Error(`the scikit-learn baseline (${python}) failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as { version: string; tasks: BaselineCodes[] };
}

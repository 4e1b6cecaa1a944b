import type { StudyLockOptions } from "../study/lock.js";
import { io } from "./io.js";

/**
 * Run a command that writes to `study` holding the study's writer lock (src/study/lock.ts):
 * a second writer waits (saying so on stderr), then fails naming the running command. Readers
 * (serve, export, sessions, --dry-run) do not call this.
 */
export async function writing<T>(study: string, command: string, fn: () => Promise<T>, options: Pick<StudyLockOptions, "create" | "waitMs"> = {}): Promise<T> {
  // Loaded when a command runs, not when the CLI starts (the lock module reads the artifact registry).
  const { withStudyLock } = await import("../study/lock.js");
  return withStudyLock(study, `colloquy ${command}`, fn, { ...options, effects: io().reporter() });
}

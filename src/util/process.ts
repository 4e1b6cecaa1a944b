/**
 * Whether a process with this id runs now on this machine. Signal 0 checks existence only; only
 * ESRCH means it is gone (EPERM: it runs, as another user), so a doubt keeps what it owns.
 */
export function processRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

/**
 * A counting semaphore: at most `limit` tasks run at once, the rest wait in FIFO order.
 * One limiter per ChatModel, shared by every caller (coder, topics, orchestrator), so the
 * configured concurrency is a promise to the endpoint, not per caller.
 */
export interface Limiter {
  run<T>(task: () => Promise<T>): Promise<T>;
  readonly active: number;
  readonly waiting: number;
}

export function createLimiter(limit: number): Limiter {
  if (!Number.isInteger(limit) || limit < 1) throw new Error(`concurrency must be a positive integer, got ${limit}`);
  let active = 0;
  const queue: Array<() => void> = [];
  const release = () => {
    active--;
    const next = queue.shift();
    if (next) {
      active++;
      next();
    }
  };
  return {
    get active() {
      return active;
    },
    get waiting() {
      return queue.length;
    },
    async run<T>(task: () => Promise<T>): Promise<T> {
      if (active < limit) active++;
      else await new Promise<void>((resolve) => queue.push(resolve));
      try {
        return await task();
      } finally {
        release();
      }
    },
  };
}

/**
 * mulberry32: a small, fast, well-distributed 32-bit PRNG returning floats in [0, 1).
 * Every seeded choice in Colloquy (bootstrap resampling, orchestrator decisions, generated
 * fixtures and benchmark data) comes from it, so results replay exactly on any machine.
 */
export function mulberry32(seed: number): () => number {
  // State kept as a signed 32-bit integer (`| 0`) so V8 keeps it unboxed; same bits as uint32.
  let a = seed | 0;
  return () => mulberry32Value((a = mulberry32Next(a)));
}

/** mulberry32's state after `state` (a hot loop keeps the state in a local and calls these two, which V8 inlines). */
export const mulberry32Next = (state: number): number => (state + 0x6d2b79f5) | 0;

/** The number in [0, 1) mulberry32 gives at a state (the state after a step). */
export function mulberry32Value(state: number): number {
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

/** Fisher-Yates shuffle of `items` in place, drawing from `random` (seeded: the same order on any machine). */
export function shuffleInPlace<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

import type { Command } from "commander";

/** `colloquy demo`: not registered yet (its issue is in progress). */
export function registerDemo(_program: Command): void {}

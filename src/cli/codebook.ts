import type { Command } from "commander";

/** `colloquy codebook`: not registered yet (its issue is in progress). */
export function registerCodebook(_program: Command): void {}

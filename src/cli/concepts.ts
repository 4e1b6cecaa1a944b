import type { Command } from "commander";

/** `colloquy concepts`: not registered yet (its issue is in progress). */
export function registerConcepts(_program: Command): void {}

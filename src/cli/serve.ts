import type { Command } from "commander";

/** `colloquy serve`: not registered yet (its issue is in progress). */
export function registerServe(_program: Command): void {}

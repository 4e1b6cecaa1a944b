import type { Command } from "commander";

/** `colloquy compare`: not registered yet (its issue is in progress). */
export function registerCompare(_program: Command): void {}

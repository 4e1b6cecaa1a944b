import type { Command } from "commander";

/** `colloquy export`: not registered yet (its issue is in progress). */
export function registerExport(_program: Command): void {}

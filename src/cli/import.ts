import type { Command } from "commander";

/** `colloquy import`: not registered yet (its issue is in progress). */
export function registerImport(_program: Command): void {}

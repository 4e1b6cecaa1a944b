import type { Command } from "commander";

/** `colloquy run`: not registered yet (its issue is in progress). */
export function registerRun(_program: Command): void {}

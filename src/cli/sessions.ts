import type { Command } from "commander";

/** `colloquy sessions`: not registered yet (its issue is in progress). */
export function registerSessions(_program: Command): void {}

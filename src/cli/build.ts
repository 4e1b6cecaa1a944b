import type { Command } from "commander";

/** `colloquy build`: not registered yet (its issue is in progress). */
export function registerBuild(_program: Command): void {}

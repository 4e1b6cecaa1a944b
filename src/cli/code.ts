import type { Command } from "commander";

/** `colloquy code`: not registered yet (its issue is in progress). */
export function registerCode(_program: Command): void {}

import type { Command } from "commander";

/** `colloquy stats`: not registered yet (its issue is in progress). */
export function registerStats(_program: Command): void {}

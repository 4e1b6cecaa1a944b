import type { Command } from "commander";

/** `colloquy study`: not registered yet (its issue is in progress). */
export function registerStudy(_program: Command): void {}

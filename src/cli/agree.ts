import type { Command } from "commander";

/** `colloquy agree`: not registered yet (its issue is in progress). */
export function registerAgree(_program: Command): void {}

import type { Command } from "commander";

/** `colloquy topics`: not registered yet (its issue is in progress). */
export function registerTopics(_program: Command): void {}

import type { Command } from "commander";
import { oneOf } from "../util/did-you-mean.js";

/**
 * Commander refuses a value outside an option's `.choices()` with the list but no guess; give
 * every such option the same "did you mean" as the values commands check themselves (oneOf).
 * The choices stay on the option, so `--help` still lists them.
 */
export function suggestForChoices(program: Command): void {
  for (const command of program.commands) {
    suggestForChoices(command);
    for (const option of command.options) {
      const choices = option.argChoices;
      if (choices) option.argParser((value: string) => oneOf(option.long ?? option.flags, value, choices));
    }
  }
}

import type { Command } from "commander";

/**
 * Help that names what only a heavy module knows (the importers, the table kinds, a path from the
 * artifact registry). A command registers a filler for it; `main` runs the fillers of the commands
 * named on the command line before parsing it, so `colloquy <command> --help` reads exactly as if
 * the text had been written at registration, while `colloquy --version`, `colloquy --help` and the
 * other commands never load that module (issue 11: fast start-up).
 */
const fillers = new WeakMap<Command, (() => Promise<void>)[]>();

/** Set the description of option `flag` (its long form) of `command` from `describe()`, before the command parses. */
export function describeOptionLater(command: Command, flag: string, describe: () => Promise<string>): void {
  const list = fillers.get(command) ?? [];
  list.push(async () => {
    const option = command.options.find((o) => o.long === flag);
    if (!option) throw new Error(`${command.name()}: no option ${flag} to describe`);
    option.description = await describe();
  });
  fillers.set(command, list);
}

/** Run the fillers of each command on the path `args` names: `import …`, `help import`, `topics export …`. */
export async function describeCommandsOn(program: Command, args: readonly string[]): Promise<void> {
  let command = program;
  for (const arg of args) {
    if (arg.startsWith("-")) continue;
    const sub = command.commands.find((c) => c.name() === arg || c.aliases().includes(arg));
    if (!sub) {
      if (arg === "help") continue;
      return;
    }
    command = sub;
    await Promise.all((fillers.get(command) ?? []).map((fill) => fill()));
  }
}

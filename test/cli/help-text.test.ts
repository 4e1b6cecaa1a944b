// The help of `colloquy` and of every command, word for word as it was before commands loaded
// their work lazily (issue 11: fast start-up). Some option texts name what only a heavy module
// knows (importers, table kinds, registry paths) and are filled in when that command is named
// (src/cli/lazy-help.ts); this catches one left as its placeholder. After changing a command's
// options on purpose, refresh the file with `npx vitest run test/cli/help-text.test.ts -u`.
import { describe, expect, it } from "vitest";
import { Command } from "commander";
import { registerCommands } from "../../src/cli/commands.js";
import { runCli } from "../support/cli.js";

/** Every command path: "", "init", …, "codebook validate", … (in registration order). */
function commandPaths(): string[] {
  const program = new Command("colloquy");
  registerCommands(program);
  const out: string[] = [""];
  const walk = (c: Command, prefix: string[]) =>
    c.commands.forEach((sub) => {
      out.push([...prefix, sub.name()].join(" "));
      walk(sub, [...prefix, sub.name()]);
    });
  walk(program, []);
  return out;
}

describe("help texts", () => {
  it("of colloquy and every command read as before", async () => {
    const parts: string[] = [];
    for (const path of commandPaths()) {
      const run = await runCli([...path.split(" ").filter(Boolean), "--help"]);
      parts.push(`=== colloquy${path ? ` ${path}` : ""}\n${run.stdout}${run.stderr}exit ${run.code}\n`);
    }
    await expect(parts.join("")).toMatchFileSnapshot("./__snapshots__/help-text.txt");
  }, 60_000);

  it("`help <command>` shows the filled-in texts too", async () => {
    const run = await runCli(["help", "import"]);
    expect(run.stdout).toMatch(/--format <name> +force a format: [a-z-]+, [a-z-]+/);
  });
});

// Every command's help reads alike: a study folder is always the `study` argument (`[study]`
// where `--study` may stand for it), every command shows an example, and descriptions of
// commands, arguments and options start with a lower-case letter (as commander's own do).
import { describe, expect, it } from "vitest";
import { Command } from "commander";
import { registerCommands } from "../../src/cli/commands.js";
import { runCli } from "../support/cli.js";

function allCommands(): Command[] {
  const program = new Command("colloquy");
  registerCommands(program);
  const out: Command[] = [];
  const walk = (c: Command) => c.commands.forEach((sub) => (out.push(sub), walk(sub)));
  walk(program);
  return out;
}

/** Lower-case first, unless the first word is a name (OpenAI, Holm, Krippendorff…). */
const startsLower = (text: string) => !/^[A-Z][a-z]/.test(text) || /^(OpenAI|Holm|Krippendorff|Cohen|Fisher|Bales|Slack|Excel|Wilcoxon|Mann)\b/.test(text);

describe("help texts", () => {
  const commands = allCommands();
  it("covers every command", () => {
    expect(commands.map((c) => c.name())).toEqual(expect.arrayContaining(["init", "import", "compare", "report", "serve", "study", "topics", "export"]));
  });
  for (const command of commands) {
    it(`${command.name()}: study folders are <study>; descriptions start alike`, () => {
      expect(startsLower(command.description()), command.description()).toBe(true);
      for (const arg of command.registeredArguments) {
        if (/study folder/.test(arg.description)) expect(arg.name(), `${command.name()} ${arg.description}`).toBe("study");
        expect(startsLower(arg.description), arg.description).toBe(true);
      }
      for (const option of command.options) {
        if (/study folder/.test(option.description)) expect(option.flags).toMatch(/<study>|\[study\]/);
        expect(startsLower(option.description), `${command.name()} ${option.flags}: ${option.description}`).toBe(true);
      }
    });
  }
  it("prints each command's help with the study argument and its --study alias", async () => {
    for (const name of ["compare", "report", "serve", "study", "sessions", "export"]) {
      const run = await runCli([name, "--help"]);
      const usage = (run.stdout + run.stderr).split("\n")[0];
      // A command with subcommands (sessions rm) lists them first.
      expect(usage, name).toMatch(/^Usage: colloquy \S+ \[options\] (\[command\] )?\[study\]/);
      expect(run.stdout, name).toMatch(/--study <study> +the study folder \(the same as the argument\)/);
    }
    expect((await runCli(["init", "--help"])).stdout).toMatch(/^Usage: colloquy init \[options\] <study>/);
  });
  it("shows an example in every command's help", async () => {
    for (const command of commands) {
      const path = command.parent?.parent ? [command.parent.name(), command.name()] : [command.name()];
      const run = await runCli([...path, "--help"]);
      expect(run.stdout, path.join(" ")).toMatch(new RegExp(`Examples:\\n  colloquy ${path.join(" ")}`));
    }
  }, 60_000);
});

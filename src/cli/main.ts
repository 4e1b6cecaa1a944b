import { Command, CommanderError } from "commander";
import { CliError, errorMessage } from "../util/errors.js";
import { toolVersion } from "../util/provenance.js";
import { registerCommands } from "./commands.js";
import { io } from "./io.js";
import { addExamples } from "./examples.js";
import { suggestForChoices } from "./choices.js";
import { describeCommandsOn } from "./lazy-help.js";
import { addStudyAliases, checkStudyBeforeAction } from "./study-arg.js";

/** Build the commander program with every command registered. Exported for in-process tests. */
export function createProgram(): Command {
  const program = new Command("colloquy")
    .description("Run, ingest, code, analyse and chart multi-party conversations between humans and AI agents.")
    .version(toolVersion)
    .option("--debug", "print stack traces on errors")
    .showHelpAfterError()
    .configureOutput({ writeOut: (text) => io().out(text), writeErr: (text) => io().err(text) })
    .exitOverride();
  registerCommands(program);
  addStudyAliases(program);
  addExamples(program);
  suggestForChoices(program);
  program.hook("preAction", (_program, action) => checkStudyBeforeAction(action));
  return program;
}

/**
 * Commands signal failure by throwing CliError (after printing any per-file reports), so a run
 * that imported nine files and failed on one still exits non-zero.
 *
 * Run the CLI with `argv` (as process.argv: node, script, args…) and return the exit code.
 * The only place errors turn into messages and exit codes.
 */
let pipeHandled = false;

/**
 * `colloquy export s | head -3`: when the reader closes the pipe, later writes fail with EPIPE
 * (as an 'error' event). That is the reader saying "enough", not a failure: the output is dropped
 * quietly and the command finishes its work with its own exit code (a `code` run piped to `head`
 * still codes every turn and still reports failure with a non-zero exit), never a stack trace.
 */
function endQuietlyOnClosedPipe(): void {
  if (pipeHandled) return;
  pipeHandled = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE") throw error;
    });
  }
}

export async function main(argv: string[]): Promise<number> {
  endQuietlyOnClosedPipe();
  const program = createProgram();
  try {
    await describeCommandsOn(program, argv.slice(2));
    await program.parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit with 0; usage errors already printed their message.
      return error.exitCode;
    }
    const debug = argv.includes("--debug");
    if (error instanceof CliError) {
      io().err(`colloquy: ${error.message}`);
      if (debug && error.stack) io().err(error.stack);
      return error.exitCode;
    }
    io().err(`colloquy: ${errorMessage(error)}`);
    if (debug && error instanceof Error && error.stack) io().err(error.stack);
    else io().err("(run again with --debug for the stack trace)");
    return 1;
  }
}

import type { Command } from "commander";
import { studyArgument } from "./study-arg.js";
import { CliError } from "../util/errors.js";
import { io } from "./io.js";
import { selectionFrom, selectionOptions, type SelectionFlags } from "./selection.js";
import { untilInterrupted } from "./interrupt.js";

interface AnnotateFlags extends SelectionFlags {
  coder: string;
  codebook?: string;
  sample?: string;
  adjudicate?: string;
  port: string;
  host: string;
}

/** `colloquy annotate <study> --coder alice`: the local coding page (and adjudication). */
export function registerAnnotate(program: Command): void {
  selectionOptions(program.command("annotate"))
    .description("code turns in a local page (one turn at a time, number keys, notes, undo), saved at once as human:<name>; or adjudicate disagreements")
    .addArgument(studyArgument())
    .requiredOption("--coder <name>", "who codes (alice or human:alice); with --adjudicate, who decides")
    .option("--codebook <id>", "codebook id or file (default: the first nominal codebook colloquy.json lists)")
    .option("--sample <file>", "only the turns of a sample made by `colloquy sample`")
    .option(
      "--adjudicate <coders>",
      "show the turns these coders coded differently, side by side, e.g. human:alice,human:bob; decisions are stored as human:adjudicated",
    )
    .option("--port <port>", "port (0 = any free port)", "0")
    .option("--host <host>", "interface to bind", "127.0.0.1")
    .addHelpText(
      "after",
      `
Examples:
  colloquy annotate my-study --coder alice --codebook bales-ipa --sample sample.csv
  colloquy annotate my-study --coder carol --adjudicate human:alice,human:bob

Open the printed address (it holds a random token; the page answers nothing without it).
Each answer is written at once; stop with Ctrl-C and run the command again to resume.`,
    )
    .action(async (study: string, flags: AnnotateFlags) => {
      const { openStudy } = await import("../stages/context.js");
      const { runAnnotate } = await import("../stages/annotate.js");
      const port = Number(flags.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`--port ${flags.port}: not a port number (0-65535)`);
      // Listen for Ctrl-C before the page exists, so a stop during start-up still closes it cleanly.
      const interrupted = untilInterrupted();
      const running = await runAnnotate(
        await openStudy(study),
        {
          coder: flags.coder,
          codebook: flags.codebook,
          sample: flags.sample,
          adjudicate: flags.adjudicate
            ?.split(",")
            .map((c) => c.trim())
            .filter(Boolean),
          selection: selectionFrom(flags),
          host: flags.host,
          port,
        },
        io().reporter(),
      );
      for (const p of running.sampleProblems) io().err(`${flags.sample}:${p.line}: ${p.problem} (left out)`);
      if (flags.host !== "127.0.0.1" && flags.host !== "localhost" && flags.host !== "::1")
        io().err(`warning: serving on ${flags.host}: other machines on the network can reach this page`);
      io().out(`${running.writer} / ${running.codebook}: ${running.done} of ${running.total} turn(s) done`);
      io().out(`Coding page: ${running.url}  (Ctrl-C to stop; answers are saved as you go)`);
      await interrupted;
      await running.close();
    });
}

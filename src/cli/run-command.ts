import type { Reporter } from "../util/reporter.js";
import { io, withIo } from "./io.js";

/**
 * Run another colloquy command in-process (the pipeline composes the same commands a
 * researcher runs by hand, so a stage and its command can never disagree). Its stdout is
 * captured and returned; its progress and warnings go to the given reporter. Errors
 * (CliError included) propagate unchanged.
 */
export async function runCommand(args: string[], reporter: Reporter): Promise<string> {
  // Imported lazily: main.ts registers the commands, including the ones that call us.
  const { createProgram } = await import("./main.js");
  let stdout = "";
  const outer = io();
  await withIo(
    {
      out: (text) => void (stdout += text.endsWith("\n") ? text : text + "\n"),
      err: (text) => outer.err(text),
      reporter: () => reporter,
    },
    async () => {
      await createProgram().parseAsync(["node", "colloquy", ...args]);
    },
  );
  return stdout;
}

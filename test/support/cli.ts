import { main } from "../../src/cli/main.js";
import { withIo } from "../../src/cli/io.js";
import { silentReporter } from "../../src/util/reporter.js";

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run `colloquy <args>` in-process and capture what it printed. */
export async function runCli(args: string[]): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const code = await withIo(
    {
      out: (t) => void (stdout += t.endsWith("\n") ? t : t + "\n"),
      err: (t) => void (stderr += t.endsWith("\n") ? t : t + "\n"),
      reporter: () => silentReporter,
    },
    () => main(["node", "colloquy", ...args]),
  );
  return { code, stdout, stderr };
}

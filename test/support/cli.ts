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

/** Forget the developer's model settings (key, endpoint, model) so a test sees only what it sets. */
export function clearModelEnv(stub: (name: string, value: string) => unknown): void {
  for (const name of ["OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL", "COLLOQUY_MODEL"]) stub(name, "");
}

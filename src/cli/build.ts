import type { Command } from "commander";
import { studyArgument } from "./study-arg.js";
import { relative } from "node:path";
import { io } from "./io.js";
import { writing } from "./lock.js";

const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;

/** `colloquy build <study> [--out <dir>]`: write the static dashboard site. */
export function registerBuild(program: Command): void {
  program
    .command("build")
    .description("build the static dashboard site (default <study>/site/)")
    .addArgument(studyArgument())
    .option("--out <dir>", "output folder (default <study>/site)")
    .action(async (study: string, options: { out?: string }) =>
      writing(study, "build", async () => {
        const { openStudy } = await import("../stages/context.js");
        const { runBuild } = await import("../stages/build.js");
        const result = await runBuild(await openStudy(study), { out: options.out, alone: true }, io().reporter());
        const rel = relative(process.cwd(), result.dir);
        const where = rel === "" ? "." : rel.startsWith("..") ? result.dir : rel;
        io().out(
          `Dashboard built in ${where}/ (${result.files.chunks} sessions; app ${kb(result.bytes.app)}, data ${kb(result.bytes.data + result.bytes.views + result.bytes.chunks)})`,
        );
        io().out(`  view it: colloquy serve ${study}   (or any static file server on ${where}/)`);
      }),
    );
}

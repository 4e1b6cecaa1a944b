import type { Command } from "commander";
import { oneOf } from "../util/did-you-mean.js";
import { io } from "./io.js";

interface InitFlags {
  title?: string;
  control?: string;
  design?: string;
}

/** `colloquy init <study>`: create a study folder with a documented default colloquy.json. */
export function registerInit(program: Command): void {
  program
    .command("init")
    .description("create a study folder (colloquy.json, sessions/, codes/, analysis/, inbox/)")
    .argument("<study>", "study folder to create (may exist)")
    .option("--title <title>", "study title")
    .option("--control <condition>", "control condition the others are compared against (compare.control)")
    .option(
      "--design <design>",
      "between (sessions as independent units, the default) or within (the same people in several conditions, paired by id) (compare.design)",
    )
    .action(async (dir: string, options: InitFlags) => {
      const { initStudy, loadStudyConfig } = await import("../study/study.js");
      const design = options.design === undefined ? undefined : oneOf("--design", options.design, ["within", "between"] as const);
      const compare = {
        ...(options.control ? { control: options.control } : {}),
        ...(design ? { design } : {}),
      };
      const paths = await initStudy(dir, { ...(options.title ? { title: options.title } : {}), ...(Object.keys(compare).length ? { compare } : {}) });
      const config = await loadStudyConfig(dir);
      const ignored = [options.title && "--title", options.control && "--control", options.design && "--design"].filter(Boolean);
      io().out(`Study ready at ${paths.root}`);
      io().out(
        `  config:   ${paths.config}${paths.keptConfig ? " (already there: kept as it was" + (ignored.length ? `; ${ignored.join(", ")} not applied` : "") + ")" : ""}`,
      );
      io().out(
        `  control:  ${config.compare.control ?? 'none yet: the "Conditions vs control" view stays empty until you set "compare": {"control": "<condition>"} in colloquy.json (or init --control)'}`,
      );
      io().out(
        `  design:   ${config.compare.design ? `${config.compare.design}-subject (declared)` : 'sessions as independent units (the default); to pair people seen in several conditions, declare "compare": {"design": "within"} (docs/statistics.md)'}`,
      );
      io().out(`  next:     colloquy import <files…> --study ${dir}`);
    });
}

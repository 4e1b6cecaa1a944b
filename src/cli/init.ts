import type { Command } from "commander";
import { initStudy } from "../study/study.js";
import { io } from "./io.js";

/** `colloquy init <dir>`: create a study folder with a documented default colloquy.json. */
export function registerInit(program: Command): void {
  program
    .command("init")
    .description("create a study folder (colloquy.json, sessions/, codes/, analysis/, inbox/)")
    .argument("<dir>", "folder to create (may exist)")
    .option("--title <title>", "study title")
    .action(async (dir: string, options: { title?: string }) => {
      const paths = await initStudy(dir, options.title ? { title: options.title } : {});
      io().out(`Study ready at ${paths.root}`);
      io().out(`  config:   ${paths.config}${paths.keptConfig ? " (already there: kept as it was" + (options.title ? "; --title not applied" : "") + ")" : ""}`);
      io().out(`  next:     colloquy import <files…> --study ${dir}`);
    });
}

import type { Command } from "commander";
import { io, printJson } from "./io.js";

/** `colloquy scenario validate <file>`: check a scenario before running it. */
export function registerScenario(program: Command): void {
  const scenario = program.command("scenario").description("check scenario files before a run");
  scenario
    .command("validate")
    .description("check every field of a scenario, cross-field rules and each condition's strategy parameters; print what would run")
    .argument("<file>", "scenario file (JSON or YAML)")
    .option("--json", "print the validated scenario and each condition's parameters (defaults filled in) as JSON")
    .action(async (file: string, flags: { json?: boolean }) => {
      const { validateScenarioFile } = await import("../orchestrator/validate.js");
      const { scenario: s, conditions } = await validateScenarioFile(file);
      if (flags.json) return printJson({ file, valid: true, scenario: s, conditions });
      const humans = s.participants.filter((p) => p.kind === "human").length;
      io().out(`${file}: valid scenario "${s.id}"${s.preset ? ` (preset ${s.preset})` : ""}`);
      io().out(
        `  participants: ${s.participants.length} (${humans} human), stop after ${s.stop.maxTurns} turns${s.stop.maxMinutes !== undefined ? ` or ${s.stop.maxMinutes} simulated minutes` : ""}`,
      );
      for (const c of conditions) io().out(`  condition ${c.name}: ${c.strategy} ${JSON.stringify(c.params)}`);
      io().out(`Next: colloquy run ${file} --dry-run   (sessions, requests, tokens and cost before spending anything)`);
    });
}

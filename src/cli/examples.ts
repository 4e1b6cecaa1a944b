import type { Command } from "commander";

/**
 * An example for every command's `--help`, kept in one place so a new command is easy to check
 * (test/cli/help.test.ts fails for a command without one). Commands whose help already ends in
 * a longer "Examples:" block of their own (agree, annotate, codes import, sample, sheet) are not here.
 */
const EXAMPLES: Record<string, string[]> = {
  init: ["colloquy init my-study --title 'Facilitated debates' --control control --design between"],
  import: ["colloquy import transcripts/ --study my-study", "colloquy import chat.json --study my-study --condition facilitator"],
  sessions: ["colloquy sessions my-study", "colloquy sessions my-study --stale --json"],
  "sessions rm": ["colloquy sessions rm my-study control-3 socratic-1"],
  export: [
    "colloquy export my-study --what turns --codes --out turns.csv",
    "colloquy export my-study --format jsonl --out -          (- is standard output)",
    "colloquy export my-study --format qdpx --out my-study.qdpx",
  ],
  codebook: ["colloquy codebook list", "colloquy codebook show bales-ipa"],
  "codebook validate": ["colloquy codebook validate my-codebook.json"],
  "codebook show": ["colloquy codebook show bales-ipa"],
  "codebook list": ["colloquy codebook list"],
  "codebook import": ["colloquy codebook import nvivo-codes.qdc --study my-study"],
  codes: ["colloquy codes import sheet.csv my-study --codebook bales-ipa --coder human:alice"],
  code: [
    "colloquy code my-study --codebook bales-ipa                 (offline rules)",
    "colloquy code my-study --codebook bales-ipa --coder llm --model gpt-4o-mini",
    "colloquy code my-study --codebook bales-ipa --coder learned --train human:alice",
  ],
  batch: ["colloquy batch status my-study", "colloquy batch collect my-study"],
  "batch status": ["colloquy batch status my-study --json"],
  "batch collect": ["colloquy batch collect my-study"],
  "batch cancel": ["colloquy batch cancel my-study"],
  compare: ["colloquy compare my-study --codebook bales-ipa --control control", "colloquy compare my-study --design within --test wilcoxon --adjust holm"],
  stats: ["colloquy stats my-study --codebook bales-ipa --coder rules"],
  topics: ["colloquy topics my-study --scope participant", "colloquy topics my-study --coder llm --runs 3"],
  "topics export": ["colloquy topics export my-study --out review.csv"],
  "topics import": ["colloquy topics import my-study review-alice.csv review-bob.csv"],
  concepts: ["colloquy concepts my-study --speakers all --lexicon terms.txt"],
  report: [
    "colloquy report my-study --format md",
    "colloquy report my-study --png --shared-scales",
    "colloquy report my-study --format html --out paper/report.html",
    "colloquy report my-study --out -",
  ],
  build: ["colloquy build my-study", "colloquy build my-study --out public/"],
  serve: ["colloquy serve my-study --open", "colloquy serve my-study --port 8080 --no-build"],
  scenario: ["colloquy scenario validate debate.yaml"],
  "scenario validate": ["colloquy scenario validate debate.yaml"],
  run: [
    "colloquy run debate.yaml my-study --runs 5 --seed 1",
    "colloquy run debate.yaml my-study --dry-run",
    "colloquy run debate.yaml old-folder --create      (make a folder of other files a study)",
  ],
  study: ["colloquy study my-study", "colloquy study my-study --coder llm --serve", "colloquy study my-study --only code,agree --force code"],
  repair: ["colloquy repair my-study --dry-run"],
  demo: ["colloquy demo --serve --open", "colloquy demo --fresh --dir /tmp/demo"],
};

/** The command path as `EXAMPLES` keys it: "codebook show". */
function pathOf(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(" ");
}

/** Append each command's examples to its `--help`. Called once the commands are registered. */
export function addExamples(program: Command): void {
  for (const command of program.commands) {
    addExamples(command);
    const examples = EXAMPLES[pathOf(command)];
    if (examples) command.addHelpText("after", `\nExamples:\n${examples.map((e) => `  ${e}`).join("\n")}`);
  }
}

/**
 * The ChatCollab corpus (../shared/corpora/chatcollab, see its PROVENANCE.md) as a Colloquy study,
 * made the way a researcher would: the Slack transcripts imported with
 * `--path-pattern "{condition}/{run}/*"`, a coding sheet written by `colloquy sheet`, its code
 * column filled with the published human codes (`human_review` of output/analyzed_dialogues.csv,
 * joined by condition, run, speaker and whitespace-normalised message), and read back with
 * `colloquy codes import` as human:gold. Nothing of the corpus is copied into the repository:
 * the study is written to a temporary folder.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import Papa from "papaparse";

const ROOT = join(import.meta.dirname, "..", "..");
export const CHATCOLLAB = join(ROOT, "..", "shared", "corpora", "chatcollab");

export const chatcollabPresent = () => existsSync(join(CHATCOLLAB, "output", "analyzed_dialogues.csv"));

/** The published labels as bales-ipa category ids. */
const CATEGORY: Record<string, string> = {
  "Shows Solidarity": "shows-solidarity",
  "Shows Tension Release": "shows-tension-release",
  Agrees: "agrees",
  "Gives Suggestion": "gives-suggestion",
  "Gives Opinion": "gives-opinion",
  "Gives Orientation": "gives-orientation",
  "Asks for Orientation": "asks-orientation",
  "Asks for Opinion": "asks-opinion",
  "Asks for Suggestion": "asks-suggestion",
  Disagrees: "disagrees",
  "Shows Tension": "shows-tension",
  "Shows Antagonism": "shows-antagonism",
  "None of the Above": "none",
};

function colloquy(args: string[]): string {
  const run = spawnSync(process.execPath, [join(ROOT, "bin/colloquy.js"), ...args], { encoding: "utf8", env: { ...process.env, CI: "true" } });
  if (run.status !== 0) throw new Error(`colloquy ${args.join(" ")} exited ${run.status}: ${run.stderr.slice(-2000)}`);
  return run.stdout;
}

/**
 * The join key of a message: the notebook's parser kept Slack's bare "h:mm" lines (a further post
 * by the same speaker) and its "New" divider inside a message, where the importer reads them as
 * markup; so those lines are left out, and whitespace is collapsed (PROVENANCE.md's caveats).
 */
const squash = (text: string) =>
  text
    .split("\n")
    .filter((line) => !/^\s*(?:\d{1,2}:\d{2}|New)\s*$/.test(line))
    .join(" ")
    .replace(/\s+/g, " ")
    .trim();

/** Import the transcripts into `study` and bring the human codes in as human:gold through the sheet round trip. */
export async function writeChatcollabStudy(study: string, scratch: string): Promise<{ turns: number; coded: number }> {
  const runs = [
    "asks_opinion",
    "asks_orientation",
    "asks_suggestion",
    "control",
    "gives_opinion",
    "gives_orientation",
    "gives_suggestion",
    "shows_solidarity",
  ].flatMap((condition) => [1, 2, 3].map((run) => join(CHATCOLLAB, "collab_dynamics", condition, String(run), `run-${run}.md`)));
  colloquy(["import", ...runs, "--study", study, "--path-pattern", "{condition}/{run}/*"]);
  const sheet = join(scratch, "sheet.csv");
  colloquy(["sheet", study, "--codebook", "bales-ipa", "--coders", "gold", "--context", "0", "--out", sheet]);
  const published = Papa.parse<Record<string, string>>(await readFile(join(CHATCOLLAB, "output", "analyzed_dialogues.csv"), "utf8"), {
    header: true,
    skipEmptyLines: true,
  }).data;
  const human = new Map(published.map((r) => [`${r.experimental_condition}\u0000${r.run}\u0000${r.name}\u0000${squash(r.message)}`, r.human_review]));
  const { sessions } = JSON.parse(colloquy(["sessions", study, "--json"])) as { sessions: { id: string; condition?: string; run?: string }[] };
  const where = new Map(sessions.map((s) => [s.id, s]));
  const rows = Papa.parse<Record<string, string>>(await readFile(sheet, "utf8"), { header: true, skipEmptyLines: true }).data;
  let coded = 0;
  for (const row of rows) {
    const s = where.get(row.session);
    const label = human.get(`${s?.condition}\u0000${s?.run}\u0000${row.speaker}\u0000${squash(row.text)}`);
    if (label === undefined) continue;
    row.code_gold = CATEGORY[label] ?? "";
    if (row.code_gold) coded++;
  }
  await writeFile(sheet, Papa.unparse(rows));
  colloquy(["codes", "import", sheet, "--study", study, "--codebook", "bales-ipa", "--coder", "human:gold"]);
  return { turns: rows.length, coded };
}

// A small study for the human-coding tests (sample, sheet, codes import, filters), built with the
// real study API: 4 sessions (conditions control and ai-led, runs 1 and 2), each with a system
// notice, a reasoning turn and an empty turn that nobody codes, and 8 codeable turns.
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Papa from "papaparse";
import { initStudy, saveSession } from "../../src/study/study.js";
import { sessionSchema, type Session } from "../../src/transcript/schema.js";

const LINES: [speaker: string, text: string][] = [
  ["ana", "I think we should start with the budget."],
  ["bot", "Good idea. What is the total we can spend?"],
  ["ben", "About ten thousand, maybe a bit more."],
  ["bot", "Then I suggest we cut the travel costs first."],
  ["ana", "I agree with that, travel is the easy part."],
  ["ben", "This plan is terrible, we need the trip."],
  ["bot", "Could you say which part of the trip matters most?"],
  ["ana", 'Thanks, that helps, "really"; commas, and\na line break.'],
];

export const CODEABLE_PER_SESSION = LINES.length;

export function fixtureSession(id: string, condition: string, run: string): Session {
  const turns = [
    { speaker: "sys", text: "Ana joined the channel", type: "system" },
    ...LINES.slice(0, 3).map(([speaker, text]) => ({ speaker, text: `${text} (${id})` })),
    { speaker: "bot", text: "private: they want to save money", type: "reasoning" },
    ...LINES.slice(3, 6).map(([speaker, text]) => ({ speaker, text: `${text} (${id})` })),
    { speaker: "ben", text: "   " },
    ...LINES.slice(6).map(([speaker, text]) => ({ speaker, text: `${text} (${id})` })),
  ];
  return sessionSchema.parse({
    id,
    metadata: { condition, run },
    participants: [
      { id: "ana", name: "Ana", kind: "human", role: "lead" },
      { id: "ben", name: "Ben", kind: "human", role: "member" },
      { id: "bot", name: "Bot", kind: "ai", role: "assistant" },
      { id: "sys", name: "Slack", kind: "system" },
    ],
    turns: turns.map((t, i) => ({ id: `t${String(i).padStart(4, "0")}`, index: i, ...t })),
  });
}

export const FIXTURE_SESSIONS: [id: string, condition: string, run: string][] = [
  ["control-1", "control", "1"],
  ["control-2", "control", "2"],
  ["ai-led-1", "ai-led", "1"],
  ["ai-led-2", "ai-led", "2"],
];

export async function humanCodingStudy(config: Parameters<typeof initStudy>[1] = {}): Promise<{ dir: string; study: string }> {
  const dir = await mkdtemp(join(tmpdir(), "colloquy-human-"));
  const study = join(dir, "study");
  await initStudy(study, config);
  for (const [id, condition, run] of FIXTURE_SESSIONS) await saveSession(study, fixtureSession(id, condition, run));
  return { dir, study };
}

export interface SheetFile {
  fields: string[];
  rows: Record<string, string>[];
}

export async function readSheet(path: string): Promise<SheetFile> {
  const text = (await readFile(path, "utf8")).replace(/^\uFEFF/, "");
  const parsed = Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true });
  return { fields: parsed.meta.fields ?? [], rows: parsed.data };
}

/** Write a (filled) sheet back; `delimiter` and `bom` imitate what spreadsheet programs save. */
export async function writeSheet(path: string, sheet: SheetFile, options: { delimiter?: string; bom?: boolean; sepLine?: boolean } = {}): Promise<void> {
  const delimiter = options.delimiter ?? ",";
  const body = Papa.unparse({ fields: sheet.fields, data: sheet.rows.map((r) => sheet.fields.map((f) => r[f] ?? "")) }, { delimiter, newline: "\r\n" });
  await writeFile(path, (options.bom ? "\uFEFF" : "") + (options.sepLine ? `sep=${delimiter}\r\n` : "") + body + "\r\n");
}

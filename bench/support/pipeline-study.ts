/**
 * Generated study for bench/pipeline.ts: N turns in 100-turn sessions over 3 conditions
 * (control, socratic, critical), one or two humans and three AI agents per session, lines drawn
 * from the demo study's utterance pools (so the rule coder fires as on real team chat) with the
 * demo's per-condition category weights, clock times so durations and rates exist, and Bales codes
 * from two human coders (alice, bob) on every fifth session: 20% of turns, double-coded.
 * Deterministic (mulberry32). `slackPaste` renders one more session as an inbox transcript.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { initStudy, saveSession } from "../../src/study/study.js";
import { replaceCodes } from "../../src/coding/store.js";
import { turnId } from "../../src/transcript/ids.js";
import { mulberry32 } from "../../src/util/random.js";
import type { CodeRecord } from "../../src/coding/records.js";
import type { Participant, Session, Turn } from "../../src/transcript/schema.js";
import { conditionWeights, teamPools } from "../../scripts/demo/pools.js";

export const CONDITIONS = ["control", "socratic", "critical"] as const;
export const SESSION_TURNS = 100;
const balesVersion = (JSON.parse(readFileSync(join(import.meta.dirname, "../../codebooks/bales-ipa.json"), "utf8")) as { version: string }).version;
const createdAt = "2026-11-22T00:00:00.000Z";

const HUMANS = ["Maya Chen", "Sam Rivera", "Alex Kim", "Priya Nair", "Jonas Berg", "Lea Dubois", "Tomás Ruiz", "Aiko Sato"];
const AGENTS: Participant[] = [
  { id: "ceo", name: "CEO", role: "AI Agent", kind: "ai" },
  { id: "product-manager", name: "Product Manager", role: "AI Agent", kind: "ai" },
  { id: "developer", name: "Developer", role: "AI Agent", kind: "ai" },
];
/** Neighbouring categories a second human coder plausibly confuses (bob disagrees on ~1 turn in 8). */
const CONFUSIONS: Record<string, string> = {
  "gives-opinion": "gives-suggestion",
  "gives-suggestion": "gives-opinion",
  "gives-orientation": "gives-opinion",
  agrees: "shows-solidarity",
  "asks-opinion": "asks-suggestion",
  disagrees: "gives-opinion",
  "shows-tension": "asks-orientation",
};

function pick<T>(random: () => number, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)]!;
}

function weighted(random: () => number, weights: Record<string, number>): string {
  const entries = Object.entries(weights);
  let x = random() * entries.reduce((s, [, w]) => s + w, 0);
  for (const [key, w] of entries) if ((x -= w) <= 0) return key;
  return entries[entries.length - 1]![0];
}

/** One 100-turn session and the category each turn was written for (the humans' "truth"). */
export function makeSession(index: number, seed = 7): { session: Session; truth: string[] } {
  const random = mulberry32(seed * 100_003 + index);
  const condition = CONDITIONS[index % CONDITIONS.length]!;
  const run = String(Math.floor(index / CONDITIONS.length) + 1);
  const humanCount = random() < 0.3 ? 2 : 1;
  const humans: Participant[] = Array.from({ length: humanCount }, (_v, k) => {
    const name = HUMANS[(index + 3 * k) % HUMANS.length]!;
    return { id: name.toLowerCase().replace(/[^a-z]+/g, "-"), name, role: k === 0 ? "Client" : "Designer", kind: "human" };
  });
  const participants = [...humans, ...AGENTS];
  const turns: Turn[] = [];
  const truth: string[] = [];
  let clock = 0;
  let last = "";
  for (let i = 0; i < SESSION_TURNS; i++) {
    const human = random() < 0.3;
    const candidates = (human ? humans : AGENTS).filter((p) => p.id !== last);
    const speaker = (candidates.length ? pick(random, candidates) : humans[0]!).id;
    const code = weighted(random, conditionWeights[condition]!);
    const pool = teamPools[code]![human ? "client" : "agent"]!;
    // One or two sentences: the second from another category, so texts vary beyond the pools.
    let text = pick(random, pool);
    if (random() < 0.35) text += " " + pick(random, teamPools[weighted(random, conditionWeights[condition]!)]![human ? "client" : "agent"]!);
    const seconds = 4 + Math.round(text.split(" ").length * (0.8 + random()));
    turns.push({ id: turnId(i), index: i, speaker, text, start: clock, end: clock + seconds, type: "message" });
    truth.push(code);
    clock += seconds + 2 + Math.floor(random() * 40);
    last = speaker;
  }
  const session: Session = {
    schemaVersion: 1,
    id: `${condition}-${run.padStart(4, "0")}`,
    title: `Game team, ${condition}, run ${run}`,
    metadata: { condition, run, task: "game", synthetic: true, source: { file: "bench/support/pipeline-study.ts", format: "native" } },
    participants,
    turns,
  };
  return { session, truth };
}

function records(session: Session, codes: string[], coder: string): CodeRecord[] {
  return session.turns.map((t, i) => ({
    session: session.id,
    turn: t.id,
    codebook: "bales-ipa",
    codebookVersion: balesVersion,
    coder,
    codes: [codes[i]!],
    provenance: { source: "bench generator" },
    createdAt,
  }));
}

/** Write the study into `dir` (every `codedEvery`-th session coded by both people); returns the number of sessions and of double human-coded turns. */
export async function writePipelineStudy(dir: string, turns: number, seed = 7, codedEvery = 5): Promise<{ sessions: number; humanTurns: number }> {
  await initStudy(dir, {
    title: `Pipeline benchmark (${turns} turns, generated)`,
    codebooks: [
      { codebook: "bales-ipa", coders: ["rules"] },
      { codebook: "pragmatic-style", coders: ["rules"] },
    ],
    humanCoders: ["human:alice", "human:bob"],
    import: { pathPattern: "{condition}/{run}/*" },
    compare: { control: "control" },
  } as never);
  const alice: CodeRecord[] = [];
  const bob: CodeRecord[] = [];
  const count = Math.ceil(turns / SESSION_TURNS);
  for (let s = 0; s < count; s++) {
    const { session, truth } = makeSession(s, seed);
    await saveSession(dir, session);
    if (s % codedEvery !== 0) continue;
    const random = mulberry32(seed + 31 * s);
    alice.push(...records(session, truth, "human:alice"));
    bob.push(
      ...records(
        session,
        truth.map((c) => (random() < 0.125 ? (CONFUSIONS[c] ?? c) : c)),
        "human:bob",
      ),
    );
  }
  await replaceCodes(dir, "bales-ipa", "human:alice", alice);
  await replaceCodes(dir, "bales-ipa", "human:bob", bob);
  return { sessions: count, humanTurns: alice.length };
}

/** A session as a Slack paste (`Name (Role)`, then `APP  h:mm PM` for agents or `  h:mm PM` for humans). */
export function slackPaste(session: Session): string {
  const lines = [`Study notes: generated transcript, condition ${session.metadata.condition}, run ${session.metadata.run}.`, ""];
  for (const turn of session.turns) {
    const p = session.participants.find((x) => x.id === turn.speaker)!;
    const minutes = 14 * 60 + Math.floor((turn.start ?? 0) / 60); // from 2:00 PM
    const h = Math.floor(minutes / 60) % 24;
    const time = `${h % 12 === 0 ? 12 : h % 12}:${String(minutes % 60).padStart(2, "0")} ${h >= 12 ? "PM" : "AM"}`;
    lines.push(`${p.name} (${p.role})`, p.kind === "ai" ? `APP  ${time}` : `  ${time}`, turn.text, "");
  }
  return lines.join("\n");
}

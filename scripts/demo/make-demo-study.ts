/**
 * Generates the synthetic demo study in fixtures/demo-study/ (run: npx tsx scripts/demo/make-demo-study.ts).
 * Deterministic (seeded), so regenerating gives byte-identical files apart from nothing.
 *
 * Design of the demo (all invented):
 *  - Team task: three AI agents (CEO, Product Manager, Developer) build a small browser game
 *    with one human client, under three instruction conditions (control, socratic, critical)
 *    x 3 runs. Runs 1-2 ship as native sessions; run 3 of every condition ships as raw Slack
 *    paste in inbox/<condition>/3/run-3.md, so the pipeline's import stage has work to do.
 *  - Human codes (Bales IPA): coder-a coded every turn of runs 1-2; coder-b independently
 *    re-coded the same turns, disagreeing on about one turn in eight in plausible ways, so
 *    agreement has something to show. Run 3 (the inbox) has no human codes.
 *  - Ideation subset: a brainstorm on unusual uses of everyday objects with one human
 *    participant (Sam Rivera in run 1, Alex Kim in run 2) and three AI agents, in each
 *    condition, for topics and concept rates.
 */
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { conditionInstructions, conditionWeights, ideationTopics, teamPools, type Speaker } from "./pools.js";
import type { Session, Turn, Participant } from "../../src/transcript/schema.js";
import type { CodeRecord } from "../../src/coding/records.js";
import { replaceCodes } from "../../src/coding/store.js";
import { turnId } from "../../src/transcript/ids.js";
import { readFileSync } from "node:fs";
import { mulberry32 } from "../../src/util/random.js";

const out = join(import.meta.dirname, "../../fixtures/demo-study");
const balesVersion = (JSON.parse(readFileSync(join(import.meta.dirname, "../../codebooks/bales-ipa.json"), "utf8")) as { version: string }).version;
const createdAt = "2026-11-22T00:00:00.000Z";

const rng = mulberry32;

function pickWeighted(random: () => number, weights: Record<string, number>): string {
  const entries = Object.entries(weights);
  const total = entries.reduce((s, [, w]) => s + w, 0);
  let x = random() * total;
  for (const [key, w] of entries) if ((x -= w) <= 0) return key;
  return entries[entries.length - 1][0];
}

/** Draw lines without repeats within one session (refilling a pool once exhausted). */
function drawer(random: () => number) {
  const used = new Map<string, Set<number>>();
  return (category: string, speaker: Speaker): string => {
    const pool = teamPools[category][speaker].length > 0 ? teamPools[category][speaker] : teamPools[category].agent;
    const key = `${category}/${speaker}`;
    let taken = used.get(key) ?? new Set<number>();
    if (taken.size >= pool.length) taken = new Set();
    let i = Math.floor(random() * pool.length);
    while (taken.has(i)) i = (i + 1) % pool.length;
    taken.add(i);
    used.set(key, taken);
    return pool[i];
  };
}

const teamParticipants: Participant[] = [
  { id: "maya-chen", name: "Maya Chen", role: "Client", kind: "human" },
  { id: "ceo", name: "CEO", role: "Chief Executive Officer", kind: "ai", persona: "You lead a small software company and make the final decisions." },
  { id: "product-manager", name: "Product Manager", role: "Product Manager", kind: "ai", persona: "You turn the client's wishes into clear requirements." },
  { id: "developer", name: "Developer", role: "Software Developer", kind: "ai", persona: "You write and test the game's code." },
];

/** Neighbouring categories a second human coder plausibly confuses. */
const confusions: Record<string, string> = {
  "gives-opinion": "gives-suggestion",
  "gives-suggestion": "gives-opinion",
  "gives-orientation": "gives-opinion",
  agrees: "shows-solidarity",
  "shows-solidarity": "agrees",
  "asks-orientation": "asks-opinion",
  "asks-opinion": "asks-suggestion",
  "asks-suggestion": "asks-opinion",
  disagrees: "gives-opinion",
  "shows-tension": "asks-orientation",
  "shows-tension-release": "shows-solidarity",
  "shows-antagonism": "disagrees",
};

interface Generated {
  session: Session;
  truth: string[];
}

function teamSession(condition: string, run: number): Generated {
  const random = rng(1000 * run + condition.length * 7 + condition.charCodeAt(0));
  const draw = drawer(random);
  const turns: Turn[] = [];
  const truth: string[] = [];
  let clock = 0;
  const add = (speaker: string, text: string, code: string, type: Turn["type"] = "message") => {
    turns.push({ id: turnId(turns.length), index: turns.length, speaker, text, start: clock, type });
    truth.push(code);
    clock += 15 + Math.floor(random() * 65);
  };
  add("maya-chen", "Hi team! I'd like a simple snake game for my nephew. It should run in the browser and be easy to learn.", "gives-orientation");
  add("ceo", "Welcome, Maya. Let's start by agreeing on the core requirements.", "gives-suggestion");
  const length = 26 + Math.floor(random() * 10);
  const agents = ["ceo", "product-manager", "developer"];
  let last = "ceo";
  while (turns.length < length) {
    const human = random() < 0.25 && last !== "maya-chen";
    const speaker = human ? "maya-chen" : agents.filter((a) => a !== last)[Math.floor(random() * 2)];
    const code = pickWeighted(random, conditionWeights[condition]);
    if (!human && random() < 0.06) {
      add(speaker, random() < 0.5 ? "ok" : "mm-hm", "agrees", "backchannel");
    } else {
      add(speaker, draw(code, human ? "client" : "agent"), code);
    }
    last = speaker;
  }
  add("ceo", "Thanks everyone. We'll deliver the playable version by Friday.", "shows-solidarity");
  return {
    session: {
      schemaVersion: 1,
      id: `${condition}-${run}`,
      title: `Game team, ${condition}, run ${run}`,
      metadata: {
        condition,
        run: String(run),
        task: "game",
        synthetic: true,
        instruction: conditionInstructions[condition],
        source: { file: `demo generator (scripts/demo/make-demo-study.ts)`, format: "native" },
      },
      participants: teamParticipants,
      turns,
    },
    truth,
  };
}

function ideationSession(condition: string, run: number): Session {
  const random = rng(5000 + 100 * run + condition.charCodeAt(0));
  const human: Participant =
    run === 1
      ? { id: "sam-rivera", name: "Sam Rivera", role: "Designer", kind: "human" }
      : { id: "alex-kim", name: "Alex Kim", role: "Designer", kind: "human" };
  const participants: Participant[] = [
    human,
    { id: "ml-researcher", name: "ML Researcher", role: "ML Researcher", kind: "ai" },
    { id: "engineer", name: "Engineer", role: "Engineer", kind: "ai" },
    { id: "summariser", name: "Summariser", role: "Summariser", kind: "ai" },
  ];
  // The manipulation shows in how far ideas are developed: socratic elaborates most, critical least.
  const elaborationShare = { control: 0.55, socratic: 0.85, critical: 0.35 }[condition] ?? 0.5;
  const ideaCount = { control: 5, socratic: 4, critical: 6 }[condition] ?? 5;
  const offset = Math.floor(random() * ideationTopics.length);
  const turns: Turn[] = [];
  let clock = 0;
  const add = (speaker: string, text: string) => {
    turns.push({ id: turnId(turns.length), index: turns.length, speaker, text, start: clock, type: "message" });
    clock += 10 + Math.floor(random() * 30);
  };
  add("summariser", "Today's challenge: unusual uses for everyday objects. Sam and the team, go ahead.".replace("Sam", human.name.split(" ")[0]));
  for (let k = 0; k < ideaCount; k++) {
    const topic = ideationTopics[(offset + k) % ideationTopics.length];
    const proposer = k % 2 === 0 ? human.id : ["ml-researcher", "engineer"][k % 4 === 1 ? 0 : 1];
    add(proposer, topic.idea);
    for (const elaboration of topic.elaborations) {
      if (random() < elaborationShare) add(random() < 0.5 ? human.id : ["ml-researcher", "engineer"][Math.floor(random() * 2)], elaboration);
    }
  }
  add("summariser", `We collected ${ideaCount} ideas; the most developed ones came with several concrete variations.`);
  return {
    schemaVersion: 1,
    id: `ideation-${condition}-${run}`,
    title: `Ideation, ${condition}, run ${run}`,
    metadata: {
      condition,
      run: String(run),
      task: "ideation",
      synthetic: true,
      instruction: conditionInstructions[condition],
      source: { file: "demo generator (scripts/demo/make-demo-study.ts)", format: "native" },
    },
    participants,
    turns,
  };
}

function clockString(startSeconds: number, at: number): string {
  const total = Math.floor(startSeconds + at) / 60;
  const hours24 = Math.floor(total / 60) % 24;
  const minutes = Math.floor(total % 60);
  const suffix = hours24 >= 12 ? "PM" : "AM";
  const hours12 = hours24 % 12 === 0 ? 12 : hours24 % 12;
  return `${hours12}:${String(minutes).padStart(2, "0")} ${suffix}`;
}

/** Render a session as a Slack paste (the format published human-AI team studies share). */
function slackPaste(session: Session): string {
  const lines = [
    `Study notes: synthetic demo transcript, condition ${session.metadata.condition}, run ${session.metadata.run}.`,
    `Prompt settings: agents use the shared team instructions; extra instruction: ${session.metadata.instruction as string}`,
    "",
  ];
  const startOfDay = 14 * 3600 + 5 * 60; // 2:05 PM
  for (const turn of session.turns) {
    const p = session.participants.find((x) => x.id === turn.speaker)!;
    lines.push(`${p.name} (${p.role})`);
    const time = clockString(startOfDay, turn.start ?? 0);
    lines.push(p.kind === "ai" ? `APP  ${time}` : `  ${time}`);
    lines.push(turn.text, "");
  }
  return lines.join("\n");
}

function codeRecords(session: Session, codes: string[], coder: string): CodeRecord[] {
  return session.turns.map((turn, i) => ({
    session: session.id,
    turn: turn.id,
    codebook: "bales-ipa",
    codebookVersion: balesVersion,
    coder,
    codes: [codes[i]],
    provenance: { source: "demo generator: the category each synthetic line was written for" },
    createdAt,
  }));
}

async function main(): Promise<void> {
  await rm(out, { recursive: true, force: true });
  await mkdir(join(out, "sessions"), { recursive: true });
  await mkdir(join(out, "codes/bales-ipa"), { recursive: true });
  const coderA: CodeRecord[] = [];
  const coderB: CodeRecord[] = [];
  for (const condition of ["control", "socratic", "critical"]) {
    for (const run of [1, 2, 3]) {
      const { session, truth } = teamSession(condition, run);
      if (run === 3) {
        const dir = join(out, "inbox", condition, String(run));
        await mkdir(dir, { recursive: true });
        await writeFile(join(dir, `run-${run}.md`), slackPaste(session));
        continue;
      }
      await writeFile(join(out, "sessions", `${session.id}.json`), JSON.stringify(session, null, 2) + "\n");
      coderA.push(...codeRecords(session, truth, "human:coder-a"));
      {
        const random = rng(77 + condition.length + 13 * run);
        const second = truth.map((code) => (random() < 0.125 ? (confusions[code] ?? code) : code));
        coderB.push(...codeRecords(session, second, "human:coder-b"));
      }
    }
    for (const run of [1, 2]) {
      const session = ideationSession(condition, run);
      await writeFile(join(out, "sessions", `${session.id}.json`), JSON.stringify(session, null, 2) + "\n");
    }
  }
  await replaceCodes(out, "bales-ipa", "human:coder-a", coderA);
  await replaceCodes(out, "bales-ipa", "human:coder-b", coderB);
  const config = {
    version: 1,
    title: "Colloquy demo study (synthetic data)",
    description:
      "Invented transcripts: an AI software team with a human client under three instruction conditions, and an ideation subset. Generated by scripts/demo/make-demo-study.ts.",
    codebooks: [
      { codebook: "bales-ipa", coders: ["rules"] },
      { codebook: "pragmatic-style", coders: ["rules"] },
    ],
    humanCoders: ["human:coder-a", "human:coder-b"],
    import: { pathPattern: "{condition}/{run}/*" },
    compare: { control: "control", design: "within" },
    topics: { coder: "rules", scope: "participant", speakers: "human", runs: 1 },
    concepts: { speakers: "all", rateBasis: "session" },
    model: {},
  };
  await writeFile(join(out, "colloquy.json"), JSON.stringify(config, null, 2) + "\n");
  await writeFile(
    join(out, "README.md"),
    [
      "# Colloquy demo study (synthetic)",
      "",
      "Everything in this folder is invented for demonstration: no real people or sessions.",
      "It is regenerated by `npx tsx scripts/demo/make-demo-study.ts`.",
      "",
      "- `sessions/`: runs 1-2 of a game-building team (client Maya Chen, human; CEO, Product Manager, Developer, AI)",
      "  under three conditions (control, socratic, critical), and an ideation subset (one human designer, three AI agents).",
      "- `inbox/<condition>/3/run-3.md`: run 3 of each condition as raw Slack pastes, imported by `colloquy study`.",
      "- `codes/bales-ipa/`: human Bales codes: coder-a and coder-b each coded runs 1-2 of the team sessions.",
      "",
    ].join("\n"),
  );
  console.log(`demo study written to ${out}: ${coderA.length} turns coded by coder-a, ${coderB.length} by coder-b`);
}

await main();

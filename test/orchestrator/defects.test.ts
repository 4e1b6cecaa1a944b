import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { askedAgent, formatName, harness, type Harness } from "./support.js";
import { parseScenario } from "../../src/orchestrator/scenario.js";
import { resolveStrategy } from "../../src/orchestrator/run.js";
import { stripOwnName } from "../../src/orchestrator/agent.js";
import { cutText } from "../../src/orchestrator/policies/scene.js";

/** Regression tests for the defects listed in issue 15 (each failed before its fix). */
let h: Harness;
beforeEach(async () => {
  h = await harness();
});
afterEach(() => h.close());

const words = (who: string, n: number) => `${who} says one two three four five six seven eight nine line ${n}`;

describe("scene interruptions", () => {
  it("at probability 1 every turn of the interrupted speaker is interrupted: generated, scripted, moderation and impromptu", async () => {
    let n = 0;
    h.server.setHandler((req) => ({ content: words(askedAgent(req), ++n) }));
    await h.run(`
id: cut
task: A panel.
participants: [{ name: Mo }, { name: Ana }, { name: Ben }, { name: Dee }]
strategy:
  type: scene
  partyOrder: moderated
  moderator: Mo
  handRaiseProbability: 1
  backchannel: { probability: 0 }
  interruptions: [{ from: Ben, to: Mo, probability: 1 }, { from: Ben, to: Dee, probability: 1 }]
  derailers: [{ participant: Dee, probability: 1, length: 1, kinds: [probe] }]
  parties: [{ name: floor, members: [Ana, Ben] }]
  snippets:
    - { id: intro, initiator: Mo, turns: 1, script: [{ speaker: Mo, text: "Welcome everyone to the panel on bees today." }], next: [qa] }
    - { id: qa, initiator: Mo, turns: 3 }
stop: { maxTurns: 100 }
`);
    const [session] = await h.sessions();
    const eligible = session.turns.filter((t) => (t.speaker === "mo" || t.speaker === "dee") && t.type === "message");
    expect(eligible.length).toBeGreaterThanOrEqual(5);
    for (const turn of eligible) expect(turn.metadata, turn.text).toMatchObject({ interruptedBy: "ben" });
    // Each is followed by Ben's interruption.
    for (const turn of eligible) expect(session.turns[turn.index + 1]).toMatchObject({ speaker: "ben", type: "interruption", addressees: [turn.speaker] });
    // The scripted welcome was cut too.
    expect(eligible[0]).toMatchObject({ metadata: { uncutText: "Welcome everyone to the panel on bees today.", decision: { scripted: true } } });
  });

  it("an interrupted turn is cut where the interruption starts; its whole text stays in the metadata", async () => {
    let n = 0;
    h.server.setHandler((req) => ({ content: words(askedAgent(req), ++n) }));
    await h.run(`
id: cut2
task: Talk.
participants: [{ name: Ana }, { name: Ben }]
strategy:
  type: scene
  backchannel: { probability: 0 }
  interruptions: [{ from: Ben, to: Ana, probability: 1 }]
  snippets: [{ id: a, initiator: Ana, turns: 1 }]
`);
    const [session] = await h.sessions();
    const ana = session.turns.find((t) => t.speaker === "ana")!;
    const whole = (ana.metadata as any).uncutText as string;
    expect(whole).toMatch(/^Ana says one two/);
    expect(ana.text.endsWith("—")).toBe(true);
    expect(whole.startsWith(ana.text.slice(0, -1))).toBe(true);
    expect(ana.text.length).toBeLessThan(whole.length);
    const fraction = (ana.metadata as any).interruptedAt as number;
    expect(ana.end).toBeCloseTo(ana.start! + whole.split(" ").length * 0.3 * fraction, 2);
  });

  it("a rule with a human interrupter fires: the person is offered the moment and their words are the interruption", async () => {
    let n = 0;
    h.server.setHandler((req) => ({ content: words(askedAgent(req), ++n) }));
    await h.run(
      `
id: human-cut
task: Talk.
participants: [{ name: Ana }, { name: Hana, kind: human }]
strategy:
  type: scene
  backchannel: { probability: 0 }
  interruptions: [{ from: Hana, to: Ana, probability: 1 }]
  snippets: [{ id: a, initiator: Ana, turns: 1 }]
`,
      { humanAnswers: ["Sorry, can I jump in?"] },
    );
    const [session] = await h.sessions();
    const interruption = session.turns.find((t) => t.type === "interruption")!;
    expect(interruption).toMatchObject({ speaker: "hana", text: "Sorry, can I jump in?", addressees: ["ana"] });
    expect(session.turns.find((t) => t.speaker === "ana")!.metadata).toMatchObject({ interruptedBy: "hana" });
  });

  it("cutText keeps at least one word and never the whole turn", () => {
    expect(cutText("one two three four", 0.5)).toBe("one two—");
    expect(cutText("one two", 0.99)).toBe("one—");
    expect(cutText("single", 0.5)).toBe("single");
  });
});

describe("agent text", () => {
  it("own-name and role prefixes are removed in every form (the raw reply is kept)", () => {
    const ceo = { name: "Ana", role: "CEO" };
    for (const raw of ["CEO: Ship it.", "Ana (CEO): Ship it.", "**CEO:** Ship it.", "**Ana**: Ship it.", "[Ana]: Ship it.", "ceo: Ship it.", "Ana: Ship it."]) {
      expect(stripOwnName(raw, ceo), raw).toBe("Ship it.");
    }
    // Someone else's name is an address, not a prefix.
    expect(stripOwnName("Ben: what do you think?", ceo)).toBe("Ben: what do you think?");
  });

  it("a reply with a nomination (confidence strategy) loses its own-name prefix", async () => {
    h.server.setHandler((req) => {
      if (formatName(req) === "confidence") return { content: JSON.stringify({ topic: "t", intent: "i", confidence: askedAgent(req) === "Ana" ? 9 : 2 }) };
      if (formatName(req) === "reply") return { content: JSON.stringify({ message: "CEO: We should ship it.", next: null }) };
      return { content: "{}" };
    });
    await h.run(`
id: prefix
task: Decide.
participants: [{ name: Ana, role: CEO }, { name: Ben }]
strategy: { type: confidence, backchannel: { probability: 0 } }
stop: { maxTurns: 1 }
`);
    const [session] = await h.sessions();
    const turn = session.turns.find((t) => t.speaker === "ana" && t.type === "message")!;
    expect(turn.text).toBe("We should ship it.");
    expect(turn.metadata).toMatchObject({ rawReply: "CEO: We should ship it." });
  });

  it("an agent never backchannels ('hmm') its own message", async () => {
    // Ana speaks first (most confident), then Ben; Ana rates low after her own message.
    let round = 0;
    h.server.setHandler((req) => {
      if (formatName(req) === "confidence") {
        if (askedAgent(req) === "Ana") round += 1;
        const who = askedAgent(req);
        const high = (round === 1 && who === "Ana") || (round === 2 && who === "Ben") || (round === 3 && who === "Cat");
        return { content: JSON.stringify({ topic: "t", intent: "i", confidence: high ? 9 : 1 }) };
      }
      return { content: JSON.stringify({ message: `${askedAgent(req)} speaks`, next: null }) };
    });
    await h.run(`
id: hmm
task: Decide.
participants: [{ name: Ana }, { name: Ben }, { name: Cat }]
strategy: { type: confidence, backchannel: { text: hmm, probability: 1 } }
stop: { maxTurns: 3 }
`);
    const [session] = await h.sessions();
    const turns = session.turns.filter((t) => t.type !== "system");
    for (const [i, turn] of turns.entries()) {
      if (turn.type !== "backchannel") continue;
      const latest = turns
        .slice(0, i)
        .filter((t) => t.type === "message")
        .at(-1);
      expect(turn.speaker, `turn ${turn.index}`).not.toBe(latest?.speaker);
    }
    expect(turns.some((t) => t.type === "backchannel")).toBe(true);
  });
});

describe("recorded settings", () => {
  it("the temperature recorded with the session is the one sent (study temperature 0.2)", async () => {
    h.server.setHandler(() => ({ content: "ok" }));
    await h.run(
      `
id: temp
task: Talk.
participants: [{ name: Ana }]
strategy: { type: round-robin }
stop: { maxTurns: 1 }
`,
      { temperature: 0.2 },
    );
    const [session] = await h.sessions();
    const sent = h.server.chatRequests().map((r) => r.body.temperature);
    expect(sent).toEqual([0.2]);
    expect((session.metadata.orchestrator as any).model.temperature).toBe(0.2);
  });

  it("without any setting, 0.7 is both sent and recorded", async () => {
    h.server.setHandler(() => ({ content: "ok" }));
    await h.run(`
id: temp2
task: Talk.
participants: [{ name: Ana }]
strategy: { type: round-robin }
stop: { maxTurns: 1 }
`);
    const [session] = await h.sessions();
    expect(h.server.chatRequests()[0].body.temperature).toBe(0.7);
    expect((session.metadata.orchestrator as any).model.temperature).toBe(0.7);
  });

  it("turn times are kept to the millisecond (no 14.399999999999999)", async () => {
    h.server.setHandler(() => ({ content: "one two three four five six seven" }));
    await h.run(`
id: times
task: Talk.
participants: [{ name: Ana }, { name: Ben }]
strategy: { type: round-robin }
stop: { maxTurns: 30 }
`);
    const [session] = await h.sessions();
    for (const t of session.turns) {
      expect(Math.round(t.start! * 1000) / 1000).toBe(t.start);
      expect(Math.round(t.end! * 1000) / 1000).toBe(t.end);
    }
    expect(session.turns.at(-1)!.end).toBe(63);
  });
});

describe("cross-field validation", () => {
  const scenario = (strategy: string) => parseScenario(`id: v\ntask: t\nparticipants: [{ name: A }, { name: B }]\nstrategy: ${strategy}\n`, "v.yaml");

  it("compression keepLast must be smaller than after (it crashed mid-run and on --resume)", () => {
    const s = scenario("{ type: ranked, compression: { after: 4, keepLast: 8 } }");
    expect(() => resolveStrategy(s, s.conditions[0])).toThrow(/strategy\.compression\.keepLast: keepLast must be smaller than after/);
  });

  it("pauseSeconds must be [min, max] in order", () => {
    const s = scenario("{ type: autonomous, pauseSeconds: [15, 3] }");
    expect(() => resolveStrategy(s, s.conditions[0])).toThrow(/strategy\.pauseSeconds: expected \[min, max\] with min <= max/);
  });
});

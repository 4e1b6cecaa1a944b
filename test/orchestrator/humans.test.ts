import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { askedAgent, formatName, harness, type Harness } from "./support.js";
import { scriptedHuman, type HumanInput } from "../../src/orchestrator/human.js";
import { memoryReporter } from "../../src/util/reporter.js";

/**
 * Regression tests for issue 15: humans are never written by a model, can always speak, and
 * never see private reasoning. Each failed before its fix.
 */
let h: Harness;
beforeEach(async () => (h = await harness()));
afterEach(() => h.close());

const action = (message: string | null, reasoning = "thinking privately") => ({
  content: JSON.stringify({ reasoning, action: message ? "message" : "wait", message, fileName: null }),
});

describe("a person in an autonomous session", () => {
  it("is not shut out by busy agents: what they post is taken at the next event", async () => {
    h.server.setHandler((req) => action(`${askedAgent(req)} keeps talking`));
    let polls = 0;
    // A person who posts once, a few events into the session (as on the page or the terminal).
    const person: HumanInput = {
      ask: async () => null,
      poll: () => (++polls === 6 ? { text: "Wait, I have a question!", receivedAt: Date.now() } : undefined),
    };
    const [outcome] = await h.run(
      `
id: busy
task: Plan a trip.
participants: [{ name: Ann }, { name: Bob }, { name: Hana, kind: human }]
strategy: { type: autonomous, pauseSeconds: [1, 2] }
stop: { maxTurns: 12 }
`,
      { human: person },
    );
    expect(outcome.status).toBe("completed");
    const [session] = await h.sessions();
    const hana = session.turns.filter((t) => t.speaker === "hana");
    expect(hana.map((t) => t.text)).toEqual(["Wait, I have a question!"]);
    // Agents deciding after it see it.
    expect(h.server.chatRequests().some((r) => JSON.stringify(r.body.messages).includes("Wait, I have a question!"))).toBe(true);
  });
});

describe("the terminal never shows private reasoning", () => {
  it("reasoning of waiting agents and initial thoughts are stored, not printed", async () => {
    h.server.setHandler((req) => action(null, `secret plan of ${askedAgent(req)}`));
    const reporter = memoryReporter();
    await h.run(
      `
id: quiet
task: Plan a trip.
participants: [{ name: Ann }, { name: Bob }]
strategy: { type: autonomous }
`,
      { reporter },
    );
    const [session] = await h.sessions();
    expect(session.turns.some((t) => t.type === "reasoning" && t.text.startsWith("secret plan"))).toBe(true);
    expect(reporter.lines.join("\n")).not.toContain("secret plan");
  });
});

const sceneWith = (people: string, strategy: string) => `
id: panel
task: A panel discussion.
participants:
${people}
strategy: ${strategy}
stop: { maxTurns: 40 }
`;

describe("human roles in a scene are played by the person", () => {
  beforeEach(() => {
    let n = 0;
    h.server.setHandler((req) => ({ content: `${askedAgent(req)} line ${++n}` }));
  });

  it("a human moderator's turns are what they typed; the model is never asked to moderate for them", async () => {
    await h.run(
      sceneWith(
        "  - { name: Mo, kind: human }\n  - { name: Ana }\n  - { name: Ben }",
        `
  type: scene
  partyOrder: moderated
  moderator: Mo
  handRaiseProbability: 1
  backchannel: { probability: 0 }
  parties: [{ name: floor, members: [Ana, Ben] }]
  snippets: [{ id: qa, initiator: Ana, turns: 3 }]`,
      ),
      { humanAnswers: ["Thank you Ana. Ben, please.", null] },
    );
    const [session] = await h.sessions();
    expect(session.turns.filter((t) => t.speaker === "mo").map((t) => t.text)).toEqual(["Thank you Ana. Ben, please."]);
    expect(h.server.chatRequests().map(askedAgent)).not.toContain("Mo");
    // The invitation stands even when the moderator passed.
    expect(session.turns.filter((t) => t.metadata?.event === "invite")).toHaveLength(2);
  });

  it("a human derailer derails in their own words, and a duty not answered in time is recorded as no answer", async () => {
    const slow: HumanInput = { ask: () => new Promise(() => {}) };
    await h.run(
      sceneWith(
        "  - { name: Ana }\n  - { name: Ben }\n  - { name: Dee, kind: human }",
        `
  type: scene
  backchannel: { probability: 0 }
  derailers: [{ participant: Dee, probability: 1, length: 2, kinds: [probe] }]
  parties: [{ name: floor, members: [Ana, Ben] }]
  snippets: [{ id: talk, initiator: Ana, turns: 2 }]`,
      ),
      { human: scriptedHuman(["But is it safe?"], slow), live: { answerTimeoutSeconds: 0.05 } },
    );
    const [session] = await h.sessions();
    expect(session.turns.filter((t) => t.speaker === "dee").map((t) => t.text)).toEqual(["But is it safe?"]);
    expect(h.server.chatRequests().map(askedAgent)).not.toContain("Dee");
    expect(session.turns.find((t) => t.metadata?.event === "no-answer")).toMatchObject({ speaker: "system", metadata: { participant: "dee" } });
    expect(session.metadata.orchestrator).toMatchObject({ humanAnswers: ["But is it safe?", null] });
  });
});

describe("derail approval", () => {
  const derailing = sceneWith(
    "  - { name: Ana }\n  - { name: Ben }\n  - { name: Dee }",
    `
  type: scene
  backchannel: { probability: 0 }
  derailers: [{ participant: Dee, probability: 1, length: 1, kinds: [drift], approval: true }]
  parties: [{ name: floor, members: [Ana, Ben] }]
  snippets: [{ id: talk, initiator: Ana, turns: 2 }]`,
  );
  beforeEach(() => h.server.setHandler((req) => ({ content: `${askedAgent(req)} says something` })));

  it("is not silently ignored when nobody can approve", async () => {
    const [outcome] = await h.run(derailing);
    expect(outcome.status).toBe("failed");
    expect(outcome.reason).toMatch(/derailers\[0\]\.approval is true but nobody can approve/);
  });

  it("goes to the operator, who approves, edits or dismisses", async () => {
    const verdicts = [{ decision: "edit" as const, text: "An edited derail." }, { decision: "dismiss" as const }];
    const operator: HumanInput = { ask: async () => null, approve: async () => verdicts.shift() ?? { decision: "approve" } };
    await h.run(derailing, { human: operator });
    const [session] = await h.sessions();
    expect(session.turns.find((t) => t.speaker === "dee")).toMatchObject({
      text: "An edited derail.",
      metadata: { editedBy: "operator", original: "Dee says something" },
    });
    expect(session.turns.some((t) => t.text === "the operator rejected a derail by Dee")).toBe(true);
  });
});

describe("confidence: the summariser and nominated humans", () => {
  const scenario = `
id: ideas
task: Ideas for a campus app.
participants: [{ name: Ann }, { name: Bob }, { name: Summariser }, { name: Hana, kind: human }]
strategy: { type: confidence, threshold: 7, summariser: Summariser, backchannel: { probability: 0 }, maxExtraRounds: 0 }
stop: { maxTurns: 20 }
`;
  const handler = (nominate: string | null) => (req: any) => {
    const name = formatName(req);
    if (name === "confidence") return { content: JSON.stringify({ topic: "apps", intent: "propose", confidence: 9 }) };
    if (name === "reply") return { content: JSON.stringify({ message: `${askedAgent(req)} idea`, next: nominate }) };
    if (name === "summary") return { content: JSON.stringify({ enough: true, summary: "We discussed apps.", followUp: null }) };
    return { content: "unexpected" };
  };

  for (const ask of ["Summariser, can you please summarise for me?", "@Summariser what do we have so far?", "Could the summariser give us a summary?"]) {
    it(`"${ask}" calls the summariser`, async () => {
      h.server.setHandler(handler(null));
      const [outcome] = await h.run(scenario, { humanAnswers: [null, ask] });
      expect(outcome.reason).toBe("the human asked for the summary");
      const [session] = await h.sessions();
      expect(session.turns.at(-1)).toMatchObject({ speaker: "summariser", text: "We discussed apps." });
      expect(session.turns.some((t) => t.speaker === "hana" && t.text === ask)).toBe(true);
      expect(
        h.server
          .chatRequests()
          .filter((r) => formatName(r) === "reply")
          .map(askedAgent),
      ).not.toContain("Summariser");
    });
  }

  it("an agent nominating the summariser calls for the summary", async () => {
    h.server.setHandler(handler("Summariser"));
    const [outcome] = await h.run(scenario, { humanAnswers: [null] });
    expect(outcome.reason).toBe("the summariser was nominated");
    expect(h.server.chatRequests().filter((r) => formatName(r) === "summary")).toHaveLength(1);
  });

  it("a nominated human is prompted once", async () => {
    h.server.setHandler(handler("Hana"));
    const prompts: string[] = [];
    const person: HumanInput = {
      ask: async ({ prompt }) => {
        prompts.push(prompt);
        return prompts.length === 2 ? "/summary" : prompts.length === 1 ? null : "more";
      },
    };
    await h.run(scenario, { human: person });
    expect(prompts).toEqual(["Open the discussion (Enter to let the agents start).", "You were asked to speak (Enter to pass, /summary to finish)."]);
  });
});

describe("human turns carry wall-clock time and latency", () => {
  it("stores when the answer arrived and how long the person took", async () => {
    h.server.setHandler(() => ({ content: "An agent reply." }));
    const person: HumanInput = { ask: () => new Promise((ok) => setTimeout(() => ok("My answer."), 120)) };
    const before = Date.now();
    await h.run(
      `
id: rr
task: Chat.
participants: [{ name: Ann }, { name: Hana, kind: human }]
strategy: { type: round-robin }
stop: { maxTurns: 2 }
`,
      { human: person },
    );
    const [session] = await h.sessions();
    const turn = session.turns.find((t) => t.speaker === "hana")!;
    expect(Date.parse(turn.metadata!.receivedAt as string)).toBeGreaterThanOrEqual(before);
    expect(turn.metadata!.latencySeconds).toBeGreaterThanOrEqual(0.1);
  });
});

describe("a person raises their own hand in a moderated scene", () => {
  it('never by chance; "/hand" (the page\'s button) raises it and the moderator invites them', async () => {
    let n = 0;
    h.server.setHandler((req) => ({ content: `${askedAgent(req)} line ${++n}` }));
    let polls = 0;
    const person: HumanInput = {
      ask: async () => "Thank you, my question is about bees.",
      poll: (p) => (p.name === "Hana" && ++polls === 2 ? { text: "/hand", receivedAt: Date.now() } : undefined),
    };
    await h.run(
      sceneWith(
        "  - { name: Mo }\n  - { name: Ana }\n  - { name: Hana, kind: human }",
        `
  type: scene
  partyOrder: moderated
  moderator: Mo
  handRaiseProbability: 1
  backchannel: { probability: 0 }
  parties: [{ name: floor, members: [Ana, Hana] }]
  snippets: [{ id: qa, initiator: Mo, turns: 4 }]`,
      ),
      { human: person },
    );
    const [session] = await h.sessions();
    const raised = session.turns.filter((t) => t.metadata?.event === "hand-raise").map((t) => t.metadata!.participant);
    expect(raised.filter((p) => p === "hana")).toHaveLength(1);
    expect(session.turns.some((t) => t.text === "Mo invites Hana")).toBe(true);
    expect(session.turns.find((t) => t.speaker === "hana")).toMatchObject({ text: "Thank you, my question is about bees." });
  });
});

describe("real time with a live person", () => {
  const quiet = `
id: rt
task: Plan a trip.
participants: [{ name: Ann }, { name: Hana, kind: human }]
strategy: { type: autonomous, pauseSeconds: [4, 4] }
stop: { maxTurns: 5 }
`;
  it("simulated pauses become real waits, shortened by the speed factor; without a live person nothing waits", async () => {
    h.server.setHandler(() => action(null));
    const waits: number[] = [];
    const person: HumanInput = {
      ask: async () => null,
      poll: () => undefined,
      live: { interjects: true },
      idle: (ms) => {
        waits.push(ms);
        return new Promise((ok) => setTimeout(ok, ms));
      },
    };
    await h.run(quiet, { human: person, live: { speed: 20, answerTimeoutSeconds: 0.2 } });
    // The first decision is 4 simulated seconds in: 200 ms of real time at speed 20.
    expect(waits[0]).toBeGreaterThan(100);
    expect(waits[0]).toBeLessThanOrEqual(200);
    waits.length = 0;
    await h.run(quiet.replace("id: rt", "id: rt2"), { human: { ...person, live: undefined } });
    expect(waits).toEqual([]);
  });
});

describe("the terminal as a live channel", () => {
  it("a line typed while busy agents talk is taken at the next event, in real time", async () => {
    const { PassThrough } = await import("node:stream");
    const { terminalHuman } = await import("../../src/orchestrator/human.js");
    h.server.setHandler((req) => action(`${askedAgent(req)} keeps talking`, "SECRET-REASONING"));
    const input = new PassThrough();
    const output = new PassThrough();
    let shown = "";
    output.on("data", (d) => (shown += d));
    const reporter = memoryReporter();
    input.write("Can I say something?\n");
    const [outcome] = await h.run(
      `
id: term
task: Plan a trip.
participants: [{ name: Ann }, { name: Bob }, { name: Hana, kind: human }]
strategy: { type: autonomous, pauseSeconds: [0.1, 0.2] }
stop: { maxTurns: 4 }
`,
      { human: terminalHuman(input, output), reporter, live: { speed: 10 } },
    );
    input.end();
    expect(outcome.status).toBe("completed");
    const [session] = await h.sessions();
    expect(session.turns.filter((t) => t.speaker === "hana").map((t) => t.text)).toEqual(["Can I say something?"]);
    expect(session.metadata.orchestrator).toMatchObject({ notes: { realTime: { speed: 10 } } });
    expect(shown + reporter.lines.join("\n")).not.toContain("SECRET-REASONING");
  });
});

describe("people's turns in a scene can be interrupted, never cut (issue 15: live and scenario together)", () => {
  const words = (who: string, n: number) => `${who} says one two three four five six seven eight nine line ${n}`;
  beforeEach(() => {
    let n = 0;
    h.server.setHandler((req) => ({ content: words(askedAgent(req), ++n) }));
  });

  it("a human moderator types the moderation turn; an interruption ends it early but keeps every word", async () => {
    const typed = "Thank you Ana, that was very helpful. Ben, please go ahead now.";
    const [outcome] = await h.run(
      sceneWith(
        "  - { name: Mo, kind: human }\n  - { name: Ana }\n  - { name: Ben }",
        `
  type: scene
  partyOrder: moderated
  moderator: Mo
  handRaiseProbability: 1
  backchannel: { probability: 0 }
  interruptions: [{ from: Ben, to: Mo, probability: 1 }]
  parties: [{ name: floor, members: [Ana, Ben] }]
  snippets: [{ id: qa, initiator: Ana, turns: 2 }]`,
      ),
      { humanAnswers: [typed, null, null, null] },
    );
    expect(outcome.status).toBe("completed");
    const [session] = await h.sessions();
    const mo = session.turns.find((t) => t.speaker === "mo")!;
    expect(mo.text).toBe(typed);
    expect(mo.metadata).toMatchObject({ interruptedBy: "ben" });
    expect(mo.metadata).not.toHaveProperty("uncutText");
    expect(session.turns[mo.index + 1]).toMatchObject({ speaker: "ben", type: "interruption", addressees: ["mo"] });
    expect(h.server.chatRequests().map(askedAgent)).not.toContain("Mo");
    expect(session.turns.some((t) => t.metadata?.event === "invite")).toBe(true);
  });

  it("a human derailer's words open the impromptu phase and can be interrupted, uncut", async () => {
    const typed = "But is it safe, and who pays for it in the end?";
    await h.run(
      sceneWith(
        "  - { name: Ana }\n  - { name: Ben }\n  - { name: Dee, kind: human }",
        `
  type: scene
  backchannel: { probability: 0 }
  interruptions: [{ from: Ben, to: Dee, probability: 1 }]
  derailers: [{ participant: Dee, probability: 1, length: 2, kinds: [probe] }]
  parties: [{ name: floor, members: [Ana, Ben] }]
  snippets: [{ id: talk, initiator: Ana, turns: 1 }]`,
      ),
      { humanAnswers: [typed, null, null] },
    );
    const [session] = await h.sessions();
    const dee = session.turns.find((t) => t.speaker === "dee")!;
    expect(dee).toMatchObject({ text: typed, metadata: { interruptedBy: "ben", decision: { phase: "impromptu", step: 1 } } });
    expect(dee.metadata).not.toHaveProperty("uncutText");
    expect(session.turns[dee.index + 1]).toMatchObject({ speaker: "ben", type: "interruption" });
  });

  it("a person who interrupts and names someone (@Name) keeps that addressee", async () => {
    const [outcome] = await h.run(
      sceneWith(
        "  - { name: Ana }\n  - { name: Ben }\n  - { name: Hana, kind: human }",
        `
  type: scene
  backchannel: { probability: 0 }
  interruptions: [{ from: Hana, to: Ana, probability: 1 }]
  parties: [{ name: floor, members: [Ana, Ben] }]
  snippets: [{ id: a, initiator: Ana, turns: 1 }]`,
      ),
      { humanAnswers: ["@Ben what do you make of this?", "Sorry Ana, go on", null, null, null, null] },
    );
    expect(outcome.status).toBe("completed");
    const [session] = await h.sessions();
    const cuts = session.turns.filter((t) => t.speaker === "hana" && t.type === "interruption");
    expect(cuts.map((t) => [t.text, t.addressees])).toEqual(
      [
        ["@Ben what do you make of this?", ["ben"]],
        ["Sorry Ana, go on", ["ana"]],
      ].slice(0, cuts.length),
    );
    expect(cuts[0]).toMatchObject({ addressees: ["ben"] });
  });

  it("on the page a human interrupter is not held up waiting: with nothing posted the turn goes on", async () => {
    const page: HumanInput = {
      ask: async () => {
        throw new Error("the page participant was asked to interrupt");
      },
      poll: () => undefined,
      live: { interjects: true },
    };
    const [outcome] = await h.run(
      sceneWith(
        "  - { name: Ana }\n  - { name: Hana, kind: human }",
        `
  type: scene
  backchannel: { probability: 0 }
  interruptions: [{ from: Hana, to: Ana, probability: 1 }]
  snippets: [{ id: a, initiator: Ana, turns: 1 }]`,
      ),
      { human: page, live: { speed: 1000 } },
    );
    expect(outcome.status).toBe("completed");
    const [session] = await h.sessions();
    expect(session.turns.some((t) => t.type === "interruption")).toBe(false);
  });
});

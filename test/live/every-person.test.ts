import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { askedAgent, formatName, harness, type Harness } from "../orchestrator/support.js";
import { LiveHub } from "../../src/orchestrator/live/hub.js";
import { parseScenario } from "../../src/orchestrator/scenario.js";
import type { Turn } from "../../src/transcript/schema.js";

/**
 * Two people on live pages in the strategies that used to hear only the first of them: the
 * second person's words enter at the next decision point (never held to the end as "late"), and
 * a person who never answers their turn does not freeze the session.
 */
let h: Harness;
beforeEach(async () => (h = await harness()));
afterEach(() => h.close());

const people = `
  - { name: Hana, kind: human }
  - { name: Ivo, kind: human }`;

/** Every turn a person said, with whether it was late, and how many agent turns came before it. */
function heard(turns: Turn[], who: string) {
  return turns
    .filter((t) => t.speaker === who)
    .map((t) => ({
      text: t.text,
      late: Boolean(t.metadata?.late),
      agentTurnsBefore: turns.filter((u) => u.index < t.index && u.speaker !== who && u.speaker !== "hana" && u.speaker !== "ivo" && u.type === "message")
        .length,
    }));
}

/** Ivo posts after the agents' `after`-th reply (before the next decision is taken). */
function postAfterReply(hub: LiveHub, after: number, who: string, text: string) {
  let replies = 0;
  hub.subscribe({ role: "operator" }, (message) => {
    if (message.type === "turn" && message.turn.type === "message" && !["hana", "ivo"].includes(message.turn.speaker) && ++replies === after)
      hub.post(who, text);
  });
}

describe("every person is heard in every strategy", () => {
  it("confidence: the second person's post is said after the next agent reply, not held to the end", async () => {
    const scenario = parseScenario(
      `id: conf\ntask: Ideas.\nparticipants:\n  - { name: Ann }\n  - { name: Bob }${people}\nstrategy: { type: confidence, opener: Ann, backchannel: { probability: 0 } }\nstop: { maxTurns: 8 }\n`,
      "c.yaml",
    );
    let replies = 0;
    h.server.setHandler((req) => {
      const name = formatName(req);
      if (name === "confidence") return { content: JSON.stringify({ topic: "t", intent: "i", confidence: 8 }) };
      return { content: JSON.stringify({ message: `${askedAgent(req)} idea ${++replies}`, next: null }) };
    });
    const hub = new LiveHub([{ id: "hana" }, { id: "ivo" }]);
    postAfterReply(hub, 1, "ivo", "Ivo: what about bikes?");
    postAfterReply(hub, 2, "hana", "Hana agrees.");
    const [outcome] = await h.run(scenario, { human: hub, live: { observer: hub } });
    expect(outcome.status).toBe("completed");
    const [session] = await h.sessions();
    expect(heard(session.turns, "ivo")).toEqual([{ text: "Ivo: what about bikes?", late: false, agentTurnsBefore: 1 }]);
    expect(heard(session.turns, "hana")).toEqual([{ text: "Hana agrees.", late: false, agentTurnsBefore: 2 }]);
  });

  it("ranked: both people are heard at the next decision and an addressed agent answers", async () => {
    const scenario = parseScenario(
      `id: rank\ntask: Transport.\nparticipants:\n  - { name: Ann }\n  - { name: Bob }${people}\nstrategy: { type: ranked, randomRate: 0, facilitateEvery: 0, driftCheckEvery: 0, initialThoughts: false }\nstop: { maxTurns: 8 }\n`,
      "r.yaml",
    );
    h.server.setHandler((req) => {
      if (formatName(req) === "rank") return { content: JSON.stringify({ ranking: ["Bob", "Ann"] }) };
      return { content: `${askedAgent(req)} says something` };
    });
    const hub = new LiveHub([{ id: "hana" }, { id: "ivo" }]);
    postAfterReply(hub, 1, "ivo", "@Ann what do you think?");
    postAfterReply(hub, 3, "hana", "Hana here too.");
    await h.run(scenario, { human: hub, live: { observer: hub } });
    const [session] = await h.sessions();
    expect(heard(session.turns, "ivo")).toEqual([{ text: "@Ann what do you think?", late: false, agentTurnsBefore: 1 }]);
    expect(heard(session.turns, "hana")).toEqual([{ text: "Hana here too.", late: false, agentTurnsBefore: 3 }]);
    // The agent Ivo addressed speaks next.
    const ivo = session.turns.find((t) => t.speaker === "ivo")!;
    expect(session.turns.find((t) => t.index > ivo.index && t.type === "message")!.speaker).toBe("ann");
  });

  it("a silent person's turn times out as no answer (the operator is told who is waited on) and the session goes on", async () => {
    const scenario = parseScenario(
      `id: rr\ntask: Talk.\nparticipants:\n  - { name: Bot }${people}\nstrategy: { type: round-robin }\nstop: { maxTurns: 4, allPass: false }\n`,
      "rr.yaml",
    );
    h.server.setHandler((req) => ({ content: `${askedAgent(req)} speaks` }));
    const hub = new LiveHub([{ id: "hana" }, { id: "ivo" }]);
    const waitedOn: string[] = [];
    hub.subscribe({ role: "operator" }, (message) => {
      if (message.type === "ask") {
        waitedOn.push(`${message.participant} ${message.timeoutSeconds}`);
        // Hana answers; Ivo never does.
        if (message.participant === "hana") setTimeout(() => hub.post("hana", "Hana answers."), 5);
      }
    });
    const started = Date.now();
    const [outcome] = await h.run(scenario, { human: hub, live: { observer: hub, turnTimeoutSeconds: 0.3 } });
    expect(outcome.status).toBe("completed");
    expect(Date.now() - started).toBeLessThan(5000);
    const [session] = await h.sessions();
    expect(waitedOn.slice(0, 2)).toEqual(["hana 0.3", "ivo 0.3"]);
    const noAnswer = session.turns.filter((t) => t.metadata?.event === "no-answer");
    expect(noAnswer[0]).toMatchObject({ speaker: "system", text: "No answer from Ivo within 0.3 s", metadata: { participant: "ivo" } });
    expect(session.turns.filter((t) => t.speaker === "bot").length).toBeGreaterThanOrEqual(2);
  });
});

describe("the operator's gate between sessions", () => {
  it("the next session starts only when the operator starts it; participants are not told which comes next", async () => {
    const scenario = parseScenario(
      `id: g\ntask: Talk.\nparticipants: [{ name: Bot }, { name: Hana, kind: human }]\nstrategy: { type: round-robin, order: [Bot] }\nconditions: [{ name: a }, { name: b }]\nstop: { maxTurns: 1 }\n`,
      "g.yaml",
    );
    h.server.setHandler((req) => ({ content: `${askedAgent(req)} speaks` }));
    const hub = new LiveHub([{ id: "hana" }]);
    const seen: string[] = [];
    hub.subscribe({ role: "participant", id: "hana" }, (m) => seen.push(m.type === "between" ? `between:${m.next}` : m.type));
    const operator: string[] = [];
    hub.subscribe({ role: "operator" }, (m) => {
      if (m.type === "between") operator.push(m.next);
    });
    const running = h.run(scenario, { human: hub, live: { observer: hub, betweenSessions: (next) => hub.awaitNext(next) } });
    while (!operator.length) await new Promise((ok) => setTimeout(ok, 20));
    await new Promise((ok) => setTimeout(ok, 200));
    expect(seen.filter((t) => t === "session")).toHaveLength(1);
    expect(operator).toEqual(["g-b-1"]);
    expect(hub.startNext()).toBe(true);
    const outcomes = await running;
    expect(outcomes.map((o) => [o.sessionId, o.status])).toEqual([
      ["g-a-1", "completed"],
      ["g-b-1", "completed"],
    ]);
    expect(seen).toContain("between:");
    expect(seen.filter((t) => t === "session")).toHaveLength(2);
  });
});

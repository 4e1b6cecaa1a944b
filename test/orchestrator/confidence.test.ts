import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { askedAgent, formatName, harness, type Harness } from "./support.js";

let h: Harness;
beforeEach(async () => (h = await harness()));
afterEach(() => h.close());

const scenario = (extra = "") => `
id: ideas
task: Ideas for a campus app.
participants:
  - { name: Ann }
  - { name: Bob }
  - { name: Cy }
  - { name: Sum, role: Summariser }
${extra}
strategy: { type: confidence, threshold: 7, summariser: Sum, backchannel: { probability: 1 }, maxExtraRounds: 1 }
stop: { maxTurns: 30 }
`;

/**
 * Script: `plan` gives, per rating round, each agent's confidence; replies nominate per `nominations`.
 * Returns the handler and the log of rating rounds the server saw.
 */
function script(
  plan: Record<string, number>[],
  nominations: Record<number, string> = {},
  summaries: { enough: boolean; followUp?: string }[] = [{ enough: true }],
) {
  let ratingCalls = 0;
  let replies = 0;
  let summaryCalls = 0;
  const agentsPerRound = 3;
  return (req: any) => {
    const name = formatName(req);
    const agent = askedAgent(req);
    if (name === "confidence") {
      const round = Math.floor(ratingCalls++ / agentsPerRound);
      const confidence = plan[round]?.[agent] ?? 0;
      return { content: JSON.stringify({ topic: "apps", intent: "propose", confidence }) };
    }
    if (name === "reply") {
      replies += 1;
      return { content: JSON.stringify({ message: `${agent} idea ${replies}`, next: nominations[replies] ?? null }) };
    }
    if (name === "summary") {
      const s = summaries[summaryCalls++] ?? { enough: true };
      return { content: JSON.stringify({ enough: s.enough, summary: "We discussed apps.", followUp: s.followUp ?? null }) };
    }
    return { content: "unexpected" };
  };
}

describe("confidence strategy", () => {
  it("rejects an unknown summariser before running", async () => {
    await expect(h.run(scenario().replace("summariser: Sum", "summariser: Nobody"))).rejects.toThrow(/strategy\.summariser names unknown participant "Nobody"/);
  });

  it("an agent exactly at the threshold may speak (at or above)", async () => {
    h.server.setHandler(script([{ Ann: 7, Bob: 6, Cy: 6 }, {}]));
    await h.run(scenario());
    const [session] = await h.sessions();
    expect(session.turns.find((t) => t.type === "message")!.speaker).toBe("ann");
  });

  it("ties are broken by the seeded generator: the same seed picks the same agent, other seeds pick others", async () => {
    const picks = new Set<string>();
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
      for (let repeat = 0; repeat < 2; repeat++) {
        const inner = await harness();
        inner.server.setHandler(script([{ Ann: 9, Bob: 9, Cy: 1 }, {}]));
        await inner.run(scenario(), { seed });
        const first = (await inner.sessions())[0].turns.find((t) => t.type === "message")!.speaker;
        await inner.close();
        if (repeat === 0) picks.add(`${seed}:${first}`);
        else expect(picks.has(`${seed}:${first}`)).toBe(true);
      }
    }
    expect(new Set([...picks].map((p) => p.split(":")[1]))).toEqual(new Set(["ann", "bob"]));
  });

  it("the most confident agent above the threshold speaks; the others backchannel; nobody confident ends with the summary", async () => {
    h.server.setHandler(
      script([
        { Ann: 8, Bob: 5, Cy: 9 },
        { Ann: 3, Bob: 6, Cy: 2 },
      ]),
    );
    const [outcome] = await h.run(scenario());
    expect(outcome.status).toBe("completed");
    const [session] = await h.sessions();
    const messages = session.turns.filter((t) => t.type === "message");
    expect(messages.map((t) => t.speaker)).toEqual(["cy", "sum"]);
    expect(messages[0].metadata).toMatchObject({
      decision: { method: "confidence", ratings: { Ann: { confidence: 8 }, Cy: { confidence: 9, topic: "apps", intent: "propose" } } },
    });
    // Only Bob was below the threshold (Ann was above but not the most confident).
    expect(session.turns.filter((t) => t.type === "backchannel").map((t) => [t.speaker, t.text])).toEqual([["bob", "hmm"]]);
    expect(session.turns.some((t) => t.type === "system" && /Nobody is confident enough/.test(t.text))).toBe(true);
    expect(messages[1].text).toBe("We discussed apps.");
    expect(session.metadata.orchestrator).toMatchObject({ endReason: "nobody nominated or confident enough" });
    // The summariser never rated.
    expect(h.server.chatRequests().filter((r) => formatName(r) === "confidence" && askedAgent(r) === "Sum")).toHaveLength(0);
  });

  it("breaks ties with the seeded generator and records the tie", async () => {
    h.server.setHandler(script([{ Ann: 9, Bob: 9, Cy: 1 }, {}]));
    await h.run(scenario());
    const [session] = await h.sessions();
    const first = session.turns.find((t) => t.type === "message")!;
    expect(["ann", "bob"]).toContain(first.speaker);
    expect(first.metadata).toMatchObject({ decision: { tie: ["Ann", "Bob"] } });
  });

  it("a nomination overrides confidence (no ratings are asked for that turn)", async () => {
    h.server.setHandler(
      script(
        [
          { Ann: 8, Bob: 0, Cy: 0 },
          { Ann: 0, Bob: 0, Cy: 0 },
        ],
        { 1: "Bob" },
      ),
    );
    await h.run(scenario());
    const [session] = await h.sessions();
    const messages = session.turns.filter((t) => t.type === "message");
    expect(messages.map((t) => t.speaker).slice(0, 2)).toEqual(["ann", "bob"]);
    expect(messages[0].addressees).toEqual(["bob"]);
    expect(messages[1].metadata).toMatchObject({ decision: { method: "nomination", nominatedBy: "ann" } });
    expect(h.server.chatRequests().filter((r) => formatName(r) === "confidence")).toHaveLength(6);
  });

  it("the summariser may ask for one more round when material is thin", async () => {
    h.server.setHandler(script([{ Ann: 8 }, {}, { Cy: 10 }, {}], {}, [{ enough: false, followUp: "Any more ideas?" }, { enough: true }]));
    await h.run(scenario());
    const [session] = await h.sessions();
    const messages = session.turns.filter((t) => t.type === "message").map((t) => `${t.speaker}: ${t.text}`);
    expect(messages).toEqual(["ann: Ann idea 1", "sum: Any more ideas?", "cy: Cy idea 2", "sum: We discussed apps."]);
  });

  it("a human can address an agent (nominating it) and ask for the summary", async () => {
    h.server.setHandler(script([{}, {}]));
    const [outcome] = await h.run(scenario("  - { name: Hana, kind: human }"), { humanAnswers: ["@Cy what about food trucks?", "/summary"] });
    expect(outcome.status).toBe("completed");
    const [session] = await h.sessions();
    const messages = session.turns.filter((t) => t.type === "message");
    expect(messages.map((t) => t.speaker)).toEqual(["hana", "cy", "sum"]);
    expect(messages[0]).toMatchObject({ text: "@Cy what about food trucks?", addressees: ["cy"] });
    expect(session.metadata.orchestrator).toMatchObject({ endReason: "the human asked for the summary" });
  });
});

describe("yes-and: the operator's End", () => {
  it("a discussion that reaches maxTurns still gets its summary (only End stops it)", async () => {
    h.server.setHandler(script([{ Ann: 9 }, { Bob: 9 }, { Cy: 9 }, { Ann: 9 }]));
    const [outcome] = await h.run(scenario().replace("maxTurns: 30", "maxTurns: 2"));
    expect(outcome.status, outcome.reason).toBe("completed");
    const [session] = await h.sessions();
    const last = session.turns.filter((t) => t.type === "message").at(-1)!;
    expect(last).toMatchObject({ speaker: "sum", text: "We discussed apps.", metadata: { decision: { method: "summary" } } });
  });

  it("stops the discussion at once: nobody speaks again and no summary is generated or stored", async () => {
    const { LiveHub } = await import("../../src/orchestrator/live/hub.js");
    const hub = new LiveHub([{ id: "hana" }]);
    const handler = script([{ Ann: 9 }, { Bob: 9 }, { Cy: 9 }], {}, [{ enough: false, followUp: "More?" }]);
    let ratings = 0;
    const yesAnd = scenario("  - { name: Hana, kind: human }").replace(/strategy: .*/, "preset: yes-and\nstrategy: { summariser: Sum, opener: Ann }");
    let endedAt = 0;
    h.server.setHandler((req) => {
      // The operator presses End while the agents rate their confidence for the second time.
      if (formatName(req) === "confidence" && ++ratings === 4) {
        hub.end();
        endedAt = h.server.requests.length;
      }
      return handler(req);
    });
    const [outcome] = await h.run(yesAnd, { human: hub, live: { observer: hub, speed: 1000 } });
    expect(outcome.status, outcome.reason).toBe("completed");
    const [session] = await h.sessions();
    expect(session.turns.some((t) => t.speaker === "sum")).toBe(false);
    expect(session.turns.some((t) => t.text === "More?")).toBe(false);
    expect(session.metadata.orchestrator).toMatchObject({ endReason: "the operator ended the session" });
    expect((session.metadata.orchestrator as { notes?: { summary?: string } }).notes?.summary).toBeUndefined();
    // After the End (pressed during a rating request): no request at all.
    expect(h.server.requests.slice(endedAt).map(formatName)).toEqual([]);
  });
});

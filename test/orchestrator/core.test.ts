import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { askedAgent, harness, userText, type Harness } from "./support.js";

let h: Harness;
beforeEach(async () => {
  h = await harness();
  // Each agent answers with its name and how many requests it has seen, so replies are distinct.
  let n = 0;
  h.server.setHandler((req) => ({ content: `${askedAgent(req)} message ${++n}` }));
});
afterEach(() => h.close());

const team = (strategy: string, extra = "") => `
id: team
task: Plan a picnic.
participants:
  - { name: Ann, role: Planner }
  - { name: Bob, role: Cook }
  - { name: Cy, role: Driver }
${extra}
strategy: ${strategy}
stop: { maxTurns: 6 }
`;

describe("round-robin", () => {
  it("speaks in the fixed order until maxTurns and saves a complete native session", async () => {
    const [outcome] = await h.run(team("{ type: round-robin, order: [Cy, Ann, Bob] }"));
    expect(outcome).toMatchObject({ status: "completed", sessionId: "team-default-1", turns: 6 });
    const [session] = await h.sessions();
    expect(session.turns.map((t) => t.speaker)).toEqual(["cy", "ann", "bob", "cy", "ann", "bob"]);
    expect(session.turns[0].text).toBe("Cy message 1");
    expect(session.metadata).toMatchObject({ condition: "default", run: "1", incomplete: false });
    expect(session.turns[1].metadata).toMatchObject({
      decision: { strategy: "round-robin", position: 1, pass: 0 },
      usage: { promptTokens: expect.any(Number) },
    });
    // Simulated time moves forward and every turn has a start and end.
    expect(session.turns.every((t, i) => i === 0 || t.start! >= session.turns[i - 1].end!)).toBe(true);
    // Each agent sees what was said before it.
    expect(userText(h.server.chatRequests()[2])).toContain("Cy (Driver): Cy message 1\nAnn (Planner): Ann message 2");
  });

  it("pipeline mode stops after the given passes", async () => {
    const [outcome] = await h.run(team("{ type: round-robin, mode: pipeline, passes: 1 }"));
    expect(outcome.turns).toBe(3);
    expect(outcome.reason).toMatch(/pipeline finished/);
  });

  it("asks human participants at their turn, keeps their words verbatim, and ends when everyone passes", async () => {
    const scenario = `
id: with-human
task: Chat.
participants:
  - { name: Dana, kind: human }
strategy: { type: round-robin }
stop: { maxTurns: 10 }
`;
    const [outcome] = await h.run(scenario, { humanAnswers: ["  hello <b>there</b>  ", null] });
    expect(outcome.reason).toBe("everyone passed");
    const [session] = await h.sessions();
    expect(session.turns.map((t) => t.text)).toEqual(["  hello <b>there</b>  "]);
    expect(session.participants[0]).toMatchObject({ kind: "human" });
    expect(session.metadata.orchestrator).toMatchObject({ humanAnswers: ["  hello <b>there</b>  ", null] });
  });

  it("rejects bad strategy parameters naming the field", async () => {
    await expect(h.run(team("{ type: round-robin, mode: sideways }"))).rejects.toThrow(/strategy\.mode/);
    await expect(h.run(team("{ type: telepathy }"))).rejects.toThrow(/strategy\.type "telepathy" is unknown/);
  });
});

describe("replay, runs and resume", () => {
  it("replays the same sessions from the cache with no new requests; runs differ by seed", async () => {
    await h.run(team("{ type: round-robin }"), { runs: 2 });
    const first = await h.sessions();
    const requests = h.server.chatRequests().length;
    const seeds = new Set(h.server.chatRequests().map((r) => r.body.seed));
    expect(seeds.size).toBe(2);
    await h.run(team("{ type: round-robin }"), { runs: 2, overwrite: true });
    expect(h.server.chatRequests().length).toBe(requests);
    const again = await h.sessions();
    expect(again.map((s) => s.turns)).toEqual(first.map((s) => s.turns));
  });

  it("saves an incomplete session on failure and --resume continues it without repeating requests", async () => {
    let n = 0;
    h.server.setHandler((req) => (++n === 4 ? { status: 401, message: "bad key" } : { content: `${askedAgent(req)} says ${n}` }));
    const [failed] = await h.run(team("{ type: round-robin }"));
    expect(failed.status).toBe("failed");
    let [session] = await h.sessions();
    expect(session.metadata.incomplete).toBe(true);
    expect(session.turns).toHaveLength(3);
    expect(session.metadata.orchestrator).toMatchObject({ failure: expect.stringMatching(/Ann|Bob|Cy/) });

    const skipped = await h.run(team("{ type: round-robin }"));
    expect(skipped[0]).toMatchObject({ status: "skipped", reason: expect.stringMatching(/--resume/) });

    const before = h.server.chatRequests().length;
    const [resumed] = await h.run(team("{ type: round-robin }"), { resume: true });
    expect(resumed.status).toBe("completed");
    [session] = await h.sessions();
    expect(session.metadata.incomplete).toBe(false);
    expect(session.turns).toHaveLength(6);
    // Only the three missing turns were requested again (the first three came from the cache).
    expect(h.server.chatRequests().length - before).toBe(3);
    expect(session.turns.slice(0, 3).map((t) => t.text)).toEqual(["Ann says 1", "Bob says 2", "Cy says 3"]);
  });

  it("a session resumed twice lists both resumes (they are journaled, not only kept in the run's memory)", async () => {
    let n = 0;
    h.server.setHandler((req) => (++n === 3 || n === 6 ? { status: 401, message: "bad key" } : { content: `${askedAgent(req)} says ${n}` }));
    expect((await h.run(team("{ type: round-robin }")))[0].status).toBe("failed");
    expect((await h.run(team("{ type: round-robin }"), { resume: true }))[0].status).toBe("failed");
    expect((await h.run(team("{ type: round-robin }"), { resume: true }))[0].status).toBe("completed");
    const [session] = await h.sessions();
    const resumed = (session.metadata.orchestrator as { notes: { resumed: { afterTurns: number; at: string }[] } }).notes.resumed;
    expect(resumed.map((r) => r.afterTurns)).toEqual([2, 4]);
    expect(Date.parse(resumed[0].at)).toBeLessThanOrEqual(Date.parse(resumed[1].at));
  });
});

describe("rounds", () => {
  it("agents see what the human said between rounds", async () => {
    const scenario = `
id: aut-human
task: Unusual uses of a brick.
participants: [{ name: A }, { name: B }, { name: Hana, kind: human }]
strategy: { type: rounds, rounds: 3 }
stop: { maxTurns: 100 }
`;
    await h.run(scenario, { humanAnswers: ["Think about gardens!", null, null] });
    const later = h.server.chatRequests().slice(2);
    expect(later).toHaveLength(4);
    for (const req of later) expect(userText(req)).toContain("Hana: Think about gardens!");
  });

  it("agents in a round speak simultaneously, see only the others' previous-round replies, and are reminded of their role", async () => {
    const scenario = `
id: aut
task: Unusual uses of a brick.
participants: [{ name: A }, { name: B }, { name: C }, { name: D }]
strategy: { type: rounds, rounds: 3, roleSet: six-hats }
stop: { maxTurns: 100 }
`;
    const [outcome] = await h.run(scenario);
    expect(outcome.status).toBe("completed");
    const [session] = await h.sessions();
    const spoken = session.turns.filter((t) => t.type === "message");
    expect(spoken).toHaveLength(12);
    for (let round = 0; round < 3; round++) {
      const turns = spoken.slice(round * 4, round * 4 + 4);
      expect(new Set(turns.map((t) => t.start)).size).toBe(1);
      expect(turns.map((t) => (t.metadata as any).decision.round)).toEqual([round + 1, round + 1, round + 1, round + 1]);
    }
    const requests = h.server.chatRequests();
    // Round 2, agent B: sees A, C, D from round 1 but not itself, and nothing from round 2.
    const bRound2 = userText(requests[5]);
    expect(askedAgent(requests[5])).toBe("B");
    expect(bRound2).toContain("A (White Hat & Green Hat): A message 1");
    expect(bRound2).toContain("C (Black Hat): C message 3");
    // Its own previous reply is shown (to refine it); nothing from the current round is.
    expect(bRound2).toContain("B (Red Hat & Blue Hat): B message 2");
    expect(bRound2).not.toContain("A message 5");
    expect(bRound2).toMatch(/Remember your role: Red hat/);
    expect(userText(requests[11])).toMatch(/final round/);
    expect((session.turns[session.turns.length - 1].metadata as any).decision.phase).toBe("convergence");
  });

  it("six thinking hats with four agents: every hat is worn (Green and Blue included), declared to the group and stored", async () => {
    await h.run(`
id: hats
task: Unusual uses of a brick.
participants: [{ name: A }, { name: B }, { name: C }, { name: D }]
strategy: { type: rounds, rounds: 2, roleSet: six-hats }
`);
    const [session] = await h.sessions();
    expect(session.participants.filter((p) => p.kind === "ai").map((p) => p.role)).toEqual([
      "White Hat & Green Hat",
      "Red Hat & Blue Hat",
      "Black Hat",
      "Yellow Hat",
    ]);
    // Declared: a roles event, and every agent's system prompt names the others with their hats.
    expect(session.turns[0]).toMatchObject({ type: "system", text: expect.stringContaining("A is White Hat & Green Hat; B is Red Hat & Blue Hat") });
    const system = h.server.chatRequests().find((r) => askedAgent(r) === "D")!.body.messages[0].content;
    expect(system).toContain("- A (White Hat & Green Hat)");
    expect(system).toContain("- B (Red Hat & Blue Hat)");
    const a = h.server.chatRequests().find((r) => askedAgent(r) === "A")!;
    expect(userText(a)).toMatch(/Green hat: generate new ideas/);
  });
});

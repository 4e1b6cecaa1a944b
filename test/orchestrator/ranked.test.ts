import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { askedAgent, formatName, harness, userText, type Harness } from "./support.js";

let h: Harness;
beforeEach(async () => (h = await harness()));
afterEach(() => h.close());

/** Judge always ranks Bob, Cy, Ann; replies are numbered; drift never; summaries are fixed. */
function handler(options: { drifting?: boolean } = {}) {
  let n = 0;
  return (req: any) => {
    const name = formatName(req);
    if (name === "rank") return { content: JSON.stringify({ ranking: ["Bob", "Cy", "Ann"] }) };
    if (name === "summary") return { content: JSON.stringify({ summary: "Earlier they proposed several ideas.", keyPhrases: ["bike racks", "night bus"] }) };
    if (name === "drift") return { content: JSON.stringify({ drifting: options.drifting ?? false, reason: "talking about lunch" }) };
    return { content: `${askedAgent(req)} says ${++n}` };
  };
}

const scenario = (strategy: string, extra = "", maxTurns = 10) => `
id: ranked
task: Improve campus transport.
participants:
  - { name: Ann }
  - { name: Bob }
  - { name: Cy }
${extra}
strategy: ${strategy}
stop: { maxTurns: ${maxTurns} }
`;

describe("ranked strategy", () => {
  it("the facilitator steps in automatically after facilitateEvery turns without facilitation", async () => {
    h.server.setHandler(handler());
    await h.run(
      scenario(
        "{ type: ranked, randomRate: 0, facilitator: Fay, facilitateEvery: 3, driftCheckEvery: 0, initialThoughts: false }",
        "  - { name: Fay, role: Facilitator }",
        8,
      ),
    );
    const [session] = await h.sessions();
    const kinds = session.turns.filter((t) => t.type === "message").map((t) => (t.speaker === "fay" ? "F" : "a"));
    expect(kinds.join("")).toBe("aaaFaaaF");
    expect((session.turns.find((t) => t.speaker === "fay")!.metadata as any).decision.reason).toBe("3 turns without facilitation");
  });

  it("opens with private initial thoughts and the judge's first speaker, then follows the ranking (never the last speaker twice)", async () => {
    h.server.setHandler(handler());
    await h.run(scenario("{ type: ranked, randomRate: 0, facilitateEvery: 0, driftCheckEvery: 0 }", "", 4));
    const [session] = await h.sessions();
    const thoughts = session.turns.filter((t) => t.type === "reasoning");
    expect(thoughts.map((t) => t.speaker)).toEqual(["ann", "bob", "cy"]);
    const spoken = session.turns.filter((t) => t.type === "message");
    expect(spoken.map((t) => t.speaker)).toEqual(["bob", "cy", "bob", "cy"]);
    expect(spoken[0].metadata).toMatchObject({ decision: { method: "opening", ranking: ["Bob", "Cy", "Ann"] } });
    // Private thoughts are shown to the judge at the opening, but never to the agents.
    const replyPrompts = h.server.chatRequests().filter((r) => !formatName(r) && /It is your turn/.test(userText(r)));
    expect(replyPrompts.every((r) => !userText(r).includes("Ann says 1"))).toBe(true);
  });

  it("picks a random speaker at the configured rate over many seeded turns", async () => {
    h.server.setHandler(handler());
    await h.run(
      scenario("{ type: ranked, randomRate: 0.2, facilitateEvery: 0, driftCheckEvery: 0, initialThoughts: false, compression: { after: 1000 } }", "", 300),
    );
    const [session] = await h.sessions();
    const methods = session.turns
      .filter((t) => t.type === "message")
      .slice(1)
      .map((t) => (t.metadata as any).decision.method);
    const share = methods.filter((m) => m === "random").length / methods.length;
    expect(methods).toHaveLength(299);
    expect(share).toBeGreaterThan(0.14);
    expect(share).toBeLessThan(0.26);
    // Judge requests are only made for the non-random turns (+1 for the opening).
    expect(h.server.chatRequests().filter((r) => formatName(r) === "rank")).toHaveLength(methods.length - methods.filter((m) => m === "random").length + 1);
  });

  it("compresses beyond 15 messages: last 8 verbatim, human turns always verbatim, older agent turns summarised", async () => {
    h.server.setHandler(handler());
    const answers: (string | null)[] = ["Please consider night buses.", ...Array(40).fill(null)];
    await h.run(
      scenario("{ type: ranked, randomRate: 0, facilitateEvery: 0, driftCheckEvery: 0, initialThoughts: false }", "  - { name: Hana, kind: human }", 18),
      { humanAnswers: answers },
    );
    const [session] = await h.sessions();
    const messages = session.turns.filter((t) => t.type === "message");
    expect(messages).toHaveLength(18);
    const replies = h.server.chatRequests().filter((r) => !formatName(r));
    const last = userText(replies.at(-1)!);
    expect(last).toContain("[Summary of the earlier discussion: Earlier they proposed several ideas.]");
    expect(last).toContain("[Key phrases: bike racks; night bus]");
    expect(last).toContain("Hana: Please consider night buses.");
    // The first agent messages were folded into the summary; the latest 8 are verbatim.
    const firstAgentText = messages.find((t) => t.speaker !== "hana")!.text;
    expect(last).not.toContain(`: ${firstAgentText}\n`);
    // The prompt for the 18th message sees 17: exactly the last 8 verbatim, the 9th-last folded.
    for (const t of messages.slice(-9, -1)) expect(last).toContain(t.text);
    expect(messages.at(-10)!.speaker).not.toBe("hana");
    expect(last).not.toContain(`: ${messages.at(-10)!.text}\n`);
    expect((session.metadata.orchestrator as any).notes.rollingSummaries.length).toBeGreaterThan(0);
    // Before the threshold there is no summary.
    expect(userText(replies[5])).not.toContain("[Summary");
  });

  it("switches thinking modes by human command and by schedule, and the facilitator steps in on request, by count and on drift", async () => {
    h.server.setHandler(handler({ drifting: true }));
    const answers = [null, "/mode focus", null, "/facilitator", ...Array(20).fill(null)];
    await h.run(
      scenario(
        "{ type: ranked, randomRate: 0, facilitator: Fay, facilitateEvery: 3, driftCheckEvery: 2, initialThoughts: false, schedule: [{ afterTurns: 6, mode: explore }] }",
        "  - { name: Fay, role: Facilitator }\n  - { name: Hana, kind: human }",
        9,
      ),
      { humanAnswers: answers },
    );
    const [session] = await h.sessions();
    const systems = session.turns.filter((t) => t.type === "system").map((t) => t.text);
    expect(systems).toEqual(["Thinking mode: focus", "Thinking mode: explore"]);
    const facilitations = session.turns.filter((t) => (t.metadata as any)?.decision?.method === "facilitation").map((t) => (t.metadata as any).decision.reason);
    expect(facilitations).toContain("requested by the human");
    expect(facilitations.some((r: string) => r.startsWith("drift:"))).toBe(true);
    const focusReply = h.server.chatRequests().find((r) => /FOCUS/.test(userText(r)));
    expect(focusReply).toBeDefined();
    expect((session.metadata.orchestrator as any).notes.modes.map((m: any) => m.by)).toEqual(["start", "human", "schedule"]);
  });
});

describe("ranked strategy without a facilitator", () => {
  it("/facilitator is not offered, and typed anyway it is answered (to that person only), never silently ignored", async () => {
    h.server.setHandler(handler());
    const { LiveHub, visibleTo } = await import("../../src/orchestrator/live/hub.js");
    const hub = new LiveHub([{ id: "hana" }, { id: "ivo" }]);
    const seen: { hana: unknown[]; ivo: unknown[] } = { hana: [], ivo: [] };
    hub.subscribe({ role: "participant", id: "hana" }, (m) => seen.hana.push(m));
    hub.subscribe({ role: "participant", id: "ivo" }, (m) => seen.ivo.push(m));
    hub.event = ((original) => (event: Parameters<typeof hub.event>[0]) => {
      original(event);
      // Hana calls for the facilitator as soon as the session starts.
      if (event.type === "session") hub.post("hana", "/facilitator");
    })(hub.event.bind(hub));
    const [outcome] = await h.run(
      scenario(
        "{ type: ranked, randomRate: 0, facilitateEvery: 0, driftCheckEvery: 0, initialThoughts: false }",
        "  - { name: Hana, kind: human }\n  - { name: Ivo, kind: human }",
        3,
      ),
      { human: hub, live: { observer: hub, speed: 1000 } },
    );
    expect(outcome.status, outcome.reason).toBe("completed");
    const [session] = await h.sessions();
    const answer = session.turns.find((t) => t.metadata?.event === "command-unavailable")!;
    expect(answer).toMatchObject({ speaker: "system", addressees: ["hana"], text: "There is no facilitator in this session: /facilitator does nothing here." });
    const texts = (messages: unknown[]) => messages.flatMap((m: any) => (m.type === "turn" ? [m.turn.text] : []));
    expect(texts(seen.hana)).toContain(answer.text);
    expect(texts(seen.ivo)).not.toContain(answer.text);
    // The page's buttons: no /facilitator where there is none to call.
    const started: any = seen.hana.find((m: any) => m.type === "session");
    expect(started.controls).toEqual(["/mode explore", "/mode focus"]);
    expect(visibleTo({ role: "participant", id: "ivo" }, { type: "turn", turn: answer })).toBeUndefined();
  });
});

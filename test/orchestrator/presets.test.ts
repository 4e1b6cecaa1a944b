import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { askedAgent, formatName, harness, userText, type Harness } from "./support.js";
import { parseScenario } from "../../src/orchestrator/scenario.js";
import { presets } from "../../src/orchestrator/presets.js";
import { resolveStrategy } from "../../src/orchestrator/run.js";

let h: Harness;
beforeEach(async () => (h = await harness()));
afterEach(() => h.close());

describe("paper presets", () => {
  it("yes-and: speaks only when confidence exceeds 7, non-confident agents always say hmm, 30-word agents, 80-word summariser", async () => {
    h.server.setHandler((req) => {
      const name = formatName(req);
      // Ana is at exactly 7 (not enough under YES AND), Ben at 8, Cat at 3.
      if (name === "confidence") return { content: JSON.stringify({ topic: "t", intent: "i", confidence: { Ana: 7, Ben: 8, Cat: 3 }[askedAgent(req)] ?? 0 }) };
      if (name === "summary") return { content: JSON.stringify({ enough: true, summary: "We agreed.", followUp: null }) };
      return { content: JSON.stringify({ message: `${askedAgent(req)} adds an idea`, next: null }) };
    });
    await h.run(`
id: ya
preset: yes-and
task: New uses for a paperclip.
participants: [{ name: Ana }, { name: Ben }, { name: Cat }, { name: Sam, role: Summariser }]
strategy: { summariser: Sam }
stop: { maxTurns: 2 }
`);
    const [session] = await h.sessions();
    const spoken = session.turns.filter((t) => t.type === "message" && t.speaker !== "sam");
    expect(spoken.map((t) => t.speaker)).toEqual(["ben", "ben"]);
    // Ana (7, not above 7) and Cat both say "hmm" every time Ben is chosen... except after their own message.
    const hmms = session.turns.filter((t) => t.type === "backchannel");
    expect(hmms.every((t) => t.text === "hmm")).toBe(true);
    expect(hmms.map((t) => t.speaker)).toEqual(["ana", "cat", "ana", "cat"]);
    const reply = h.server.chatRequests().find((r) => formatName(r) === "reply")!;
    expect(userText(reply)).toMatch(/at most 30 words/);
    const summary = h.server.chatRequests().find((r) => formatName(r) === "summary")!;
    expect(userText(summary)).toMatch(/at most 80 words/);
    expect((session.metadata.orchestrator as any).preset).toBe("yes-and");
  });

  it("llm-discussion: temperature 1, five rounds with the three phase intentions, the paper's roles declared to the group", async () => {
    h.server.setHandler((req) => ({ content: `${askedAgent(req)} idea` }));
    await h.run(`
id: ld
preset: llm-discussion
task: Unusual uses of a brick.
participants: [{ name: A }, { name: B }, { name: C }, { name: D }]
`);
    const requests = h.server.chatRequests();
    expect(new Set(requests.map((r) => r.body.temperature))).toEqual(new Set([1]));
    expect(requests).toHaveLength(20);
    expect(userText(requests[0])).toMatch(/Initiate a group discussion/);
    expect(userText(requests[4])).toMatch(/be as divergent and creative as you can/);
    // The last round is a discussion round that also asks to converge; every reply claims its role first.
    expect(userText(requests[19])).toMatch(/be as divergent and creative as you can.*finalise a list/s);
    expect(requests.every((r) => userText(r).includes("Begin your reply by stating your role."))).toBe(true);
    const [session] = await h.sessions();
    // The published run's roles, one per agent.
    expect(session.participants.filter((p) => p.kind === "ai").map((p) => p.role)).toEqual([
      "Environmentalist",
      "Creative Professional",
      "Futurist",
      "Futurist",
    ]);
    expect(requests[0].body.messages[0].content).toContain("- B (Creative Professional)");
    expect((session.metadata.orchestrator as any).model.temperature).toBe(1);
  });

  it("multicolleagues: the facilitator welcomes everyone; an unaddressed message from the person goes to the persona best placed to answer", async () => {
    h.server.setHandler((req) => {
      const name = formatName(req);
      if (name === "rank") return { content: JSON.stringify({ ranking: /best placed to answer/.test(userText(req)) ? ["Cy", "Bob"] : ["Bob", "Cy"] }) };
      return { content: `${askedAgent(req)} speaks` };
    });
    await h.run(
      `
id: mc
preset: multicolleagues
task: Improve campus transport.
participants: [{ name: Fay, role: Facilitator }, { name: Bob }, { name: Cy }, { name: Me, kind: human }]
strategy: { facilitator: Fay, initialThoughts: false, facilitateEvery: 0, driftCheckEvery: 0, randomRate: 0 }
stop: { maxTurns: 4 }
`,
      { humanAnswers: ["How do we make buses faster?", null, null] },
    );
    const [session] = await h.sessions();
    const spoken = session.turns.filter((t) => t.type === "message");
    expect(spoken[0]).toMatchObject({ speaker: "fay", metadata: { decision: { method: "welcome" } } });
    expect(spoken[1]).toMatchObject({ speaker: "me", text: "How do we make buses faster?" });
    expect(spoken[2]).toMatchObject({ speaker: "cy", metadata: { decision: { method: "routed", ranking: ["Cy", "Bob"] } } });
    // The judge is told the task; the colleagues answer in one or two sentences.
    const judge = h.server.chatRequests().find((r) => formatName(r) === "rank")!;
    expect(judge.body.messages[0].content).toContain("The group's task: Improve campus transport.");
    const reply = h.server.chatRequests().find((r) => !formatName(r) && /It is your turn to speak as Cy/.test(userText(r)))!;
    expect(userText(reply)).toContain("Keep it to one or two sentences.");
  });

  it("multicolleagues needs a facilitator to welcome (checked before any run)", () => {
    const s = parseScenario("id: x\npreset: multicolleagues\ntask: t\nparticipants: [{ name: A }]\n", "x.yaml");
    expect(s.strategy).toMatchObject({ type: "ranked", welcome: true, routeUnaddressed: true });
    expect(() => resolveStrategy(s, s.conditions[0])).toThrow(/strategy\.welcome: true needs strategy\.facilitator/);
  });

  it("chatcollab and dialoglab choose their strategies; chatcollab's instruction is the logged prompt's intentions, not the behaviour the paper observed", async () => {
    h.server.setHandler(() => ({ content: JSON.stringify({ reasoning: "r", action: "wait", message: null, fileName: null }) }));
    await h.run(`
id: cc
preset: chatcollab
task: Build tic-tac-toe.
participants: [{ name: CEO }, { name: Dev }]
`);
    const prompt = userText(h.server.chatRequests()[0]);
    expect(prompt).toMatch(/Do not repeat yourself/);
    expect(prompt).not.toMatch(/wait for it before you proceed/);
    expect(parseScenario("id: x\npreset: chatcollab\ntask: t\nparticipants: [{ name: A }]\n", "x.yaml").strategy).toMatchObject({ pauseSeconds: [3, 15] });
    expect(
      parseScenario("id: x\npreset: dialoglab\ntask: t\nparticipants: [{ name: A }]\nstrategy: { snippets: [{ id: a, initiator: A, turns: 1 }] }\n", "x.yaml")
        .strategy.type,
    ).toBe("scene");
  });

  it("the scenario's own values win over the preset's; a strategy.type that does not fit the preset is refused", () => {
    const s = parseScenario(
      "id: x\npreset: yes-and\ntask: t\nparticipants: [{ name: A }]\nstrategy: { threshold: 5 }\nmodel: { temperature: 0.3 }\n",
      "x.yaml",
    );
    expect(s.strategy).toMatchObject({ type: "confidence", threshold: 5, thresholdRule: "above", wordLimit: 30 });
    expect(() => parseScenario("id: x\npreset: yes-and\ntask: t\nparticipants: [{ name: A }]\nstrategy: { type: rounds }\n", "x.yaml")).toThrow(
      /strategy\.type "rounds" does not fit preset "yes-and"/,
    );
    expect(() => parseScenario("id: x\npreset: nope\ntask: t\nparticipants: [{ name: A }]\nstrategy: { type: rounds }\n", "x.yaml")).toThrow(/preset/);
  });

  it("docs/presets.md lists every value of every preset", async () => {
    const doc = await readFile(join(import.meta.dirname, "../../docs/presets.md"), "utf8");
    for (const [id, preset] of Object.entries(presets)) {
      const section = doc.split(/^## /m).find((s) => s.startsWith(`\`${id}\``));
      expect(section, id).toBeDefined();
      for (const key of [...Object.keys(preset.strategy), ...Object.keys(preset.model ?? {})]) expect(section, `${id}: ${key}`).toContain(`\`${key}\``);
    }
  });
});

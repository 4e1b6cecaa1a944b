import { describe, expect, it } from "vitest";
import { LiveHub, visibleTo } from "../../src/orchestrator/live/hub.js";
import type { Turn } from "../../src/transcript/schema.js";

const turn = (t: Partial<Turn>): Turn => ({ id: "t0", index: 0, speaker: "ann", text: "hi", type: "message", start: 0, end: 1, ...t });
const hana = { role: "participant" as const, id: "hana" };

describe("what a participant's page receives", () => {
  it("no reasoning turns, no turn metadata, no system notes carrying decisions or ratings", () => {
    expect(visibleTo(hana, { type: "turn", turn: turn({ type: "reasoning", text: "private" }) })).toBeUndefined();
    const shown = visibleTo(hana, { type: "turn", turn: turn({ metadata: { decision: { ranking: ["ann"], ratings: { ann: 9 } }, usage: {} } }) });
    expect(shown).toEqual({ type: "turn", turn: turn({}) });
    expect(
      visibleTo(hana, {
        type: "turn",
        turn: turn({ speaker: "system", type: "system", text: "Nobody is confident enough (highest 5)", metadata: { decision: { method: "none" } } }),
      }),
    ).toBeUndefined();
    expect(
      visibleTo(hana, {
        type: "turn",
        turn: turn({ speaker: "system", type: "system", text: "Ann is typing…", metadata: { event: "typing", participant: "ann" } }),
      }),
    ).toEqual({ type: "typing", participant: "ann" });
    // Prompts go to the person asked; held derails only to the operator.
    expect(visibleTo(hana, { type: "ask", participant: "ivo", prompt: "Your turn", controls: [] })).toBeUndefined();
    expect(visibleTo(hana, { type: "ask", participant: "hana", prompt: "Your turn", controls: [] })).toBeDefined();
    expect(visibleTo(hana, { type: "approval", id: 1, request: { derailer: "Dee", kind: "drift", proposed: "x" } })).toBeUndefined();
    expect(visibleTo({ role: "operator" }, { type: "turn", turn: turn({ type: "reasoning", text: "private" }) })).toBeDefined();
  });

  it("posts reach the person's ask, or wait in order to be polled; pass answers null; tokens are per viewer", async () => {
    const hub = new LiveHub([{ id: "hana" }, { id: "ivo" }]);
    const agent = { id: "hana", name: "Hana", kind: "human" as const };
    hub.event({ type: "session", sessionId: "s", title: "", task: "", strategy: "autonomous", participants: [] });
    hub.post("hana", "first");
    hub.post("hana", "/summary");
    expect(hub.poll(agent)?.text).toBe("first");
    expect(await hub.ask({ participant: agent, prompt: "", history: [], display: () => "" })).toBe("/summary");
    const asked = hub.ask({ participant: agent, prompt: "", history: [], display: () => "" });
    expect(hub.pass("hana")).toBe(true);
    expect(await asked).toBeNull();
    expect(hub.viewerOf(hub.participantTokens.get("ivo"))).toEqual({ role: "participant", id: "ivo" });
    expect(hub.viewerOf(hub.operatorToken)).toEqual({ role: "operator" });
    expect(hub.viewerOf("guess")).toBeUndefined();
  });
});

describe("blind by default", () => {
  const session = {
    type: "session" as const,
    sessionId: "study-confidence-high-1",
    title: "Study: confidence-high, run 1",
    task: "Plan.",
    strategy: "confidence",
    controls: ["/summary"],
    participants: [
      { id: "ann", name: "Ann", kind: "ai" as const, role: "Summariser" },
      { id: "hana", name: "Hana", kind: "human" as const },
      { id: "system", name: "System", kind: "system" as const },
    ],
  };
  const system = (text: string, metadata: Record<string, unknown>) => ({
    type: "turn" as const,
    turn: turn({ speaker: "system", type: "system", text, metadata }),
  });

  it("a participant gets no condition, session id, strategy, kinds, design-revealing system lines or end reason", () => {
    const view = { condition: false, kinds: false, systemEvents: [], title: "Study" };
    const shown = visibleTo(hana, { ...session, view }, view);
    expect(shown).toEqual({
      type: "session",
      sessionId: "",
      title: "Study",
      task: "Plan.",
      strategy: "",
      controls: ["/summary"],
      participants: [
        { id: "ann", name: "Ann", role: "Summariser" },
        { id: "hana", name: "Hana" },
      ],
    });
    expect(JSON.stringify(shown)).not.toMatch(/confidence|"kind"/);
    expect(visibleTo(hana, system("the operator rejected a derail by Sam", { event: "derail-rejected" }), view)).toBeUndefined();
    expect(visibleTo(hana, system("Round 2 of 5 (discussion)", { round: 2, phase: "discussion" }), view)).toBeUndefined();
    expect(visibleTo(hana, system("No answer from Ivo within 180 s", { event: "no-answer" }), view)).toBeUndefined();
    expect(visibleTo(hana, { type: "end", reason: "nobody nominated or confident enough" }, view)).toEqual({ type: "end", reason: "" });
    // The operator sees it all.
    expect(visibleTo({ role: "operator" }, system("Round 2 of 5 (discussion)", { round: 2 }), view)).toBeDefined();
  });

  it("shows what the scenario lists: the condition, kinds, system lines by event", () => {
    const view = { condition: true, kinds: true, systemEvents: ["hand-raise", "round"], title: "Study: high" };
    const shown = visibleTo(hana, { ...session, view }, view) as { title: string; participants: { kind?: string }[] };
    expect(shown.title).toBe("Study: high");
    expect(shown.participants.map((p) => p.kind)).toEqual(["ai", "human"]);
    expect(visibleTo(hana, system("Hana raises a hand", { event: "hand-raise" }), view)).toBeDefined();
    expect(visibleTo(hana, system("Round 2 of 5", { round: 2 }), view)).toBeDefined();
    expect(visibleTo(hana, system("the operator rejected a derail by Sam", { event: "derail-rejected" }), view)).toBeUndefined();
  });
});

describe("who has joined", () => {
  it("the operator is told who has a page open and who is not here; participants are not", () => {
    const hub = new LiveHub([{ id: "hana" }, { id: "ivo" }]);
    const operator: unknown[] = [];
    const hanaGot: unknown[] = [];
    hub.subscribe({ role: "operator" }, (m) => operator.push(m));
    const leave = hub.subscribe(hana, (m) => hanaGot.push(m));
    hub.subscribe({ role: "participant", id: "ivo" }, () => {});
    leave();
    expect(operator).toEqual([
      { type: "presence", online: [], expected: ["hana", "ivo"] },
      { type: "presence", online: ["hana"], expected: ["hana", "ivo"] },
      { type: "presence", online: ["hana", "ivo"], expected: ["hana", "ivo"] },
      { type: "presence", online: ["ivo"], expected: ["hana", "ivo"] },
    ]);
    expect(hanaGot.filter((m) => (m as { type: string }).type === "presence")).toEqual([]);
  });
});

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

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { askedAgent, harness, type Harness } from "../orchestrator/support.js";
import { LiveHub } from "../../src/orchestrator/live/hub.js";
import { parseScenario } from "../../src/orchestrator/scenario.js";

/**
 * A person's words on the live page are never dropped, never given to another prompt than the
 * one they answered, and never moved into another session (review finding H1).
 */
let h: Harness;
beforeEach(async () => (h = await harness()));
afterEach(() => h.close());

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));
const near = (iso: unknown, at: number) => Math.abs(Date.parse(String(iso)) - at) <= 5;

describe("words posted on the live page in a round-robin session", () => {
  it("posted twice out of turn: both stored in order with their post times; posted after the last prompt: written into that session, not the next", async () => {
    const scenario = parseScenario(
      `
id: rr
task: Talk.
participants: [{ name: Me, kind: human }, { name: Bot }]
strategy: { type: round-robin }
stop: { maxTurns: 5 }
`,
      "rr.yaml",
    );
    const hub = new LiveHub([{ id: "me" }]);
    let session = 0;
    let asks = 0;
    let botCalls = 0;
    const postedAt: Record<string, number> = {};
    const postNow = (text: string) => {
      postedAt[text] = Date.now();
      hub.post("me", text);
    };
    hub.subscribe({ role: "operator" }, (message) => {
      if (message.type === "session") [session, asks, botCalls] = [session + 1, 0, 0];
      if (message.type === "ask" && message.participant === "me") {
        asks += 1;
        const answer = asks === 1 ? (session === 1 ? "hello" : "second hello") : null;
        setTimeout(() => (answer === null ? hub.pass("me") : hub.post("me", answer)), 5);
      }
    });
    h.server.setHandler(async (req) => {
      botCalls += 1;
      if (session === 1 && botCalls === 1) {
        // While Bot is speaking, the person posts twice: out of turn.
        postNow("out of turn one");
        await sleep(30);
        postNow("out of turn two");
        await sleep(30);
      }
      // Bot's last turn of session 1: the person posts; no prompt of theirs follows.
      if (session === 1 && botCalls === 2) postNow("after the last prompt");
      return { content: `${askedAgent(req)} reply ${session}.${botCalls}` };
    });
    const outcomes = await h.run(scenario, { runs: 2, human: hub, live: { observer: hub } });
    expect(outcomes.map((o) => o.status)).toEqual(["completed", "completed"]);
    const sessions = await h.sessions();
    const first = sessions.find((s) => s.id === "rr-default-1")!;
    const second = sessions.find((s) => s.id === "rr-default-2")!;
    const mine = (s: typeof first) => s.turns.filter((t) => t.speaker === "me");
    expect(first.turns.map((t) => [t.speaker, t.text])).toEqual([
      ["me", "hello"],
      ["bot", "Bot reply 1.1"],
      ["me", "out of turn one"],
      ["me", "out of turn two"],
      ["bot", "Bot reply 1.2"],
      ["me", "after the last prompt"],
    ]);
    const [, one, two, late] = mine(first);
    for (const turn of [one, two, late])
      expect(near(turn.metadata?.receivedAt, postedAt[turn.text]), `${turn.text}: ${String(turn.metadata?.receivedAt)}`).toBe(true);
    expect(late).toMatchObject({ type: "message", metadata: { late: true, note: expect.stringContaining("after the last prompt") } });
    expect(mine(second).map((t) => t.text)).toEqual(["second hello"]);
  }, 30_000);

  it("outside a running session a post is refused (the page keeps it), and a new session starts with nothing queued", () => {
    const hub = new LiveHub([{ id: "me" }]);
    const agent = { id: "me", name: "Me", kind: "human" as const };
    expect(hub.post("me", "too early")).toBe(false);
    const start = { type: "session" as const, sessionId: "s", title: "", task: "", strategy: "round-robin", participants: [] };
    hub.event(start);
    expect(hub.post("me", "left over")).toBe(true);
    hub.event(start);
    expect(hub.poll(agent)).toBeUndefined();
    hub.event({ type: "end", reason: "done" });
    expect(hub.post("me", "too late")).toBe(false);
  });
});

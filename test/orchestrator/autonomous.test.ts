import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { askedAgent, formatName, harness, userText, type Harness } from "./support.js";

let h: Harness;
beforeEach(async () => (h = await harness()));
afterEach(() => h.close());

const scenario = (extra = "") => `
id: auto
task: Write a README together.
sharedInstructions: The Lead assigns work; the Writer delivers files.
participants:
  - { name: Lead }
  - { name: Writer }
  - { name: Critic }
${extra}
strategy: { type: autonomous, pauseSeconds: [3, 15] }
stop: { maxTurns: 50 }
`;

describe("autonomous strategy", () => {
  it("prompts agents only after something new happened, shows typing, delivers files, and ends when everyone waits", async () => {
    // Lead speaks once at the start; Writer delivers a file once it has seen Lead's message; everyone else waits.
    let leadSpoke = false;
    let fileDelivered = false;
    h.server.setHandler((req) => {
      const agent = askedAgent(req);
      const text = userText(req);
      if (agent === "Lead" && !leadSpoke) {
        leadSpoke = true;
        return {
          content: JSON.stringify({ reasoning: "I should assign the work.", action: "message", message: "Writer, please draft the README.", fileName: null }),
        };
      }
      if (agent === "Writer" && !fileDelivered && text.includes("please draft the README")) {
        fileDelivered = true;
        return { content: JSON.stringify({ reasoning: "I promised a draft.", action: "file", message: "# Project\nHow to install.", fileName: "README.md" }) };
      }
      return { content: JSON.stringify({ reasoning: "Nothing for me to do.", action: "wait", message: null, fileName: null }) };
    });
    const [outcome] = await h.run(scenario());
    expect(outcome).toMatchObject({ status: "completed", reason: "every agent waits and no human acts" });
    const [session] = await h.sessions();
    const visible = session.turns.filter((t) => t.type !== "reasoning");
    expect(visible.map((t) => `${t.type}:${t.speaker}`)).toEqual(["system:system", "message:lead", "system:system", "file:writer"]);
    expect(visible[0].text).toBe("Lead is typing…");
    expect(visible[3]).toMatchObject({
      text: "# Project\nHow to install.",
      metadata: { fileName: "README.md", decision: { action: "file", reasoning: "I promised a draft." } },
    });
    // Waiting decisions keep their private reasoning as reasoning turns, never shown to others.
    expect(session.turns.filter((t) => t.type === "reasoning").every((t) => t.text === "Nothing for me to do.")).toBe(true);
    for (const req of h.server.chatRequests()) expect(userText(req)).not.toContain("Nothing for me to do.");

    // Each agent decides once at the start and then only when an event it has not seen exists:
    // events are 4 (2 typing + message + file); no agent is ever prompted twice on the same view.
    const views = h.server.chatRequests().map((r) => `${askedAgent(r)}|${userText(r).split("\n\nSimulated time")[0]}`);
    expect(new Set(views).size).toBe(views.length);
    expect(h.server.chatRequests().every((r) => formatName(r) === "action")).toBe(true);

    // Decisions are spaced by seeded pauses of 3-15 simulated seconds.
    const decided = session.turns.map((t) => (t.metadata as any)?.decision?.decidedAt).filter((x): x is number => typeof x === "number");
    expect(Math.min(...decided)).toBeGreaterThanOrEqual(3);
  });

  it("a lone agent is not prompted again by its own typing notice or message", async () => {
    let n = 0;
    h.server.setHandler(() => ({
      content: JSON.stringify(
        ++n === 1
          ? { reasoning: "hello", action: "message", message: "Hi all", fileName: null }
          : { reasoning: "wait", action: "wait", message: null, fileName: null },
      ),
    }));
    const [outcome] = await h.run("id: solo\ntask: t\nparticipants: [{ name: Only }]\nstrategy: { type: autonomous }\n");
    expect(outcome.reason).toBe("every agent waits and no human acts");
    expect(h.server.chatRequests()).toHaveLength(1);
  });

  it("an agent deciding while another types sees the typing notice but not the message yet", async () => {
    let first = true;
    h.server.setHandler((req) => {
      if (askedAgent(req) === "Lead" && first) {
        first = false;
        // A long message: typing takes 0.3 s/word x 200 words = 60 s.
        return { content: JSON.stringify({ reasoning: "long", action: "message", message: Array(200).fill("word").join(" "), fileName: null }) };
      }
      return { content: JSON.stringify({ reasoning: "wait", action: "wait", message: null, fileName: null }) };
    });
    await h.run(scenario());
    const sawTypingOnly = h.server.chatRequests().some((r) => userText(r).includes("Lead is typing…") && !userText(r).includes("word word"));
    expect(sawTypingOnly).toBe(true);
    const [session] = await h.sessions();
    const message = session.turns.find((t) => t.speaker === "lead" && t.type === "message")!;
    expect(message.end! - message.start!).toBeCloseTo(60, 5);
  });

  it("gives humans the floor when every agent waits, and their words wake the agents", async () => {
    let n = 0;
    h.server.setHandler(() => ({ content: JSON.stringify({ reasoning: "wait", action: "wait", message: null, fileName: null, n: n++ }) }));
    const [outcome] = await h.run(scenario("  - { name: Hana, kind: human }"), { humanAnswers: ["Status, anyone?", null] });
    expect(outcome.reason).toBe("every agent waits and no human acts");
    const [session] = await h.sessions();
    expect(session.turns.filter((t) => t.type === "message").map((t) => t.text)).toEqual(["Status, anyone?"]);
    // 3 first looks + 3 after the human's message.
    expect(h.server.chatRequests()).toHaveLength(6);
  });
});

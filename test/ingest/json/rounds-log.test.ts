import { describe, expect, it } from "vitest";
import { roundsLogImporter } from "../../../src/ingest/formats/rounds-log.js";
import { importErrorOf, importFixture, importText, speakerName } from "./helpers.js";

describe("rounds-log importer", () => {
  it("orders replies by round, shares identical prompts, and keeps personas and extra keys", async () => {
    const { sessions } = await importFixture(roundsLogImporter, "rounds-log/debate-gsm.json");
    expect(sessions).toHaveLength(2);
    const [q1, q2] = sessions;
    expect(q1.title).toBe("Janet has 3 apples and buys 5 more. She gives 2 to Tom. How many apples does she have?");
    expect(q1.metadata.extra).toEqual({ answer: "6" });
    expect(q1.participants.map((p) => [p.name, p.kind])).toEqual([
      ["Agent Alpha", "ai"],
      ["Agent Beta", "ai"],
      ["Agent Gamma", "ai"],
      ["Moderator", "system"],
    ]);
    expect(q1.participants[0].persona).toBe("You are Agent Alpha, a careful mathematician.");
    expect(q1.turns.map((_, i) => speakerName(q1, i))).toEqual([
      "Moderator", // the identical round-1 prompt, once, to all three
      "Agent Alpha",
      "Agent Beta",
      "Agent Gamma",
      "Moderator",
      "Agent Alpha",
      "Moderator",
      "Agent Beta",
      "Moderator",
      "Agent Gamma",
    ]);
    expect(q1.turns[0]).toMatchObject({ type: "system", addressees: ["agent-alpha", "agent-beta", "agent-gamma"], metadata: { round: 1 } });
    expect(q1.turns[4].addressees).toEqual(["agent-alpha"]);
    expect(q1.turns.filter((t) => t.type === "message").map((t) => t.metadata?.round)).toEqual([1, 1, 1, 2, 2, 2]);
    expect(q1.turns[9].text).toBe("Still \\boxed{6}.");
    // A null reply is an empty turn; a prompt left unanswered still appears.
    expect(q2.turns.map((t) => t.text)).toEqual(["Answer briefly: Wie viele Beine hat eine Spinne? 🕷", "Acht (8).", "", "Please answer with a number."]);
  });

  it("with promptsAs: metadata keeps only replies as turns and prompts in session metadata", async () => {
    const { sessions } = await importFixture(roundsLogImporter, "rounds-log/debate-gsm.json", { promptsAs: "metadata" });
    const q1 = sessions[0];
    expect(q1.turns.map((t) => speakerName(q1, t.index))).toEqual(["Agent Alpha", "Agent Beta", "Agent Gamma", "Agent Alpha", "Agent Beta", "Agent Gamma"]);
    expect(q1.participants.some((p) => p.name === "Moderator")).toBe(false);
    const prompts = q1.metadata.prompts as { round: number; agents: string[]; text: string }[];
    expect(prompts.map((p) => [p.round, p.agents])).toEqual([
      [1, ["Agent Alpha", "Agent Beta", "Agent Gamma"]],
      [2, ["Agent Alpha"]],
      [2, ["Agent Beta"]],
      [2, ["Agent Gamma"]],
    ]);
  });

  it("handles agents with different numbers of rounds", async () => {
    const log = {
      q: {
        A: [
          { role: "user", content: "p" },
          { role: "assistant", content: "a1" },
          { role: "user", content: "p2" },
          { role: "assistant", content: "a2" },
        ],
        B: [
          { role: "user", content: "p" },
          { role: "assistant", content: "b1" },
        ],
      },
    };
    const { sessions } = await importText(roundsLogImporter, "r.json", JSON.stringify(log));
    expect(sessions[0].turns.map((t) => t.text)).toEqual(["p", "a1", "b1", "p2", "a2"]);
  });

  it("reports bad shapes with JSON paths", async () => {
    expect((await importErrorOf(roundsLogImporter, "r.json", "[]")).jsonPath).toBe("$");
    expect((await importErrorOf(roundsLogImporter, "r.json", '{"q": [1]}')).jsonPath).toBe("$.q");
    expect((await importErrorOf(roundsLogImporter, "r.json", '{"q?": {"A": [{"role": "user", "content": 3}]}}')).message).toBe(
      'r.json: $["q?"].A[0].content: found a number (3); expected a string, null, or an array of content parts',
    );
    expect((await importErrorOf(roundsLogImporter, "r.json", '{"q": {"A": ["hi"]}}')).jsonPath).toBe("$.q.A[0]");
  });

  it("detects question -> agent -> messages logs", () => {
    expect(roundsLogImporter.detect("log.json", '{"What is 2+2?": {"agent_1": [{"role": "user", "content": "x"}')).toBeGreaterThan(0.8);
    expect(roundsLogImporter.detect("log.json", '{"Q?": {"answer": "6", "A": [{"role": "user", "content": "x"}')).toBeGreaterThan(0.8);
    expect(roundsLogImporter.detect("log.json", '[{"role": "user"}]')).toBe(0);
    expect(roundsLogImporter.detect("chat.json", '{"meta": {"model": "m"}, "messages": [{"role": "user", "content": "x"}]}')).toBe(0);
  });
});

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { askedAgent, harness, userText, type Harness } from "./support.js";

let h: Harness;
beforeEach(async () => {
  h = await harness();
  let n = 0;
  h.server.setHandler((req) => ({ content: `${askedAgent(req)} line ${++n}` }));
});
afterEach(() => h.close());

const people = `
participants:
  - { name: Mo, role: Moderator }
  - { name: Ana }
  - { name: Ben }
  - { name: Cat }
  - { name: Dan }
  - { name: Eve }
`;
const base = (strategy: string, extra = "") => `
id: conf
task: A poster session.
${people}${extra}
strategy: ${strategy}
stop: { maxTurns: 100 }
`;
const spoken = async () => (await h.sessions())[0].turns.filter((t) => t.type === "message" || t.type === "interruption");

describe("scene strategy", () => {
  it("party speaking modes: a representative speaks for the posters, every member of the audience speaks (round-robin parties)", async () => {
    await h.run(
      base(`
  type: scene
  partyOrder: round-robin
  backchannel: { probability: 0 }
  parties:
    - { name: posters, members: [Ana, Ben], speakingMode: representative, representative: Ana }
    - { name: audience, members: [Cat, Dan, Eve], speakingMode: all }
  snippets:
    - { id: talk, initiator: posters, turns: 8 }`),
    );
    expect((await spoken()).map((t) => t.speaker)).toEqual(["ana", "ana", "cat", "dan", "eve", "ana", "cat", "dan"]);
  });

  it("subset mode picks the configured number of members", async () => {
    await h.run(
      base(`
  type: scene
  partyOrder: round-robin
  backchannel: { probability: 0 }
  parties: [{ name: audience, members: [Cat, Dan, Eve], speakingMode: subset, subsetSize: 2 }]
  snippets: [{ id: qa, initiator: Ana, turns: 7 }]`),
    );
    const speakers = (await spoken()).map((t) => t.speaker);
    expect(speakers[0]).toBe("ana");
    // Three subsets of two members each follow the opening.
    for (const pair of [speakers.slice(1, 3), speakers.slice(3, 5), speakers.slice(5, 7)]) {
      expect(new Set(pair).size).toBe(2);
      pair.forEach((s) => expect(["cat", "dan", "eve"]).toContain(s));
    }
  });

  it("moderated order: hands are raised first come first served, the moderator acknowledges the last speaker and invites the first raised hand by name", async () => {
    await h.run(
      base(`
  type: scene
  partyOrder: moderated
  moderator: Mo
  handRaiseProbability: 1
  backchannel: { probability: 0 }
  parties: [{ name: floor, members: [Ana, Ben, Cat] }]
  snippets: [{ id: qa, initiator: Mo, turns: 4 }]`),
    );
    const [session] = await h.sessions();
    const events = session.turns.filter((t) => t.type === "system").map((t) => t.text);
    expect(events).toEqual([
      "Scene: qa",
      "Ana raises a hand",
      "Ben raises a hand",
      "Cat raises a hand",
      "Mo invites Ana",
      "Mo invites Ben",
      "Ana raises a hand",
      "Mo invites Cat",
    ]);
    const moderations = session.turns.filter((t) => (t.metadata as any)?.decision?.method === "moderation").map((t) => (t.metadata as any).decision);
    // The moderator opened the snippet: it thanks nobody then, and never thanks itself.
    expect(moderations.map((d) => [d.acknowledged, d.invited])).toEqual([
      [undefined, "Ana"],
      ["Ana", "Ben"],
      ["Ben", "Cat"],
    ]);
    const firstInstruction = userText(h.server.chatRequests().find((r) => askedAgent(r) === "Mo")!);
    expect(firstInstruction).not.toMatch(/thank Mo/);
    expect((await spoken()).filter((t) => t.speaker !== "mo").map((t) => t.speaker)).toEqual(["ana", "ben", "cat"]);
  });

  it("derailers open impromptu phases of the configured length, held for a human's approval or edit", async () => {
    await h.run(
      base(
        `
  type: scene
  backchannel: { probability: 0 }
  derailers: [{ participant: Dee, probability: 1, length: 3, kinds: [probe], approval: true, approver: Hana }]
  parties: [{ name: floor, members: [Ana, Ben, Cat] }]
  snippets: [{ id: talk, initiator: Ana, turns: 2 }]`,
        "  - { name: Dee }\n  - { name: Hana, kind: human }",
      ),
      { humanAnswers: ["Dee asks: but is it safe?", "/reject"] },
    );
    const [session] = await h.sessions();
    const phases = session.turns.filter((t) => (t.metadata as any)?.decision?.phase === "impromptu");
    expect(phases.map((t) => (t.metadata as any).decision.step)).toEqual([1, 2, 3]);
    expect(phases[0]).toMatchObject({
      speaker: "dee",
      text: "Dee asks: but is it safe?",
      metadata: { original: expect.stringMatching(/^Dee line/), editedBy: "hana" },
    });
    expect(phases[0].metadata).toMatchObject({ decision: { derail: "probe" } });
    // The second derail was rejected by the human and never said.
    expect(session.turns.some((t) => t.type === "system" && /rejected a derail by Dee/.test(t.text))).toBe(true);
  });

  it("scripted participants say their fixed lines; interruptions cut in on the configured pair", async () => {
    await h.run(
      base(
        `
  type: scene
  partyOrder: round-robin
  backchannel: { probability: 0 }
  interruptions: [{ from: Ben, to: Ana, probability: 1, tone: eager }]
  parties: [{ name: presenters, members: [Ana], speakingMode: all }, { name: crowd, members: [Cat], speakingMode: all }]
  snippets:
    - { id: intro, initiator: Mo, turns: 1, script: [{ speaker: Mo, text: "Welcome to the session!" }], next: [talk] }
    - { id: talk, initiator: presenters, turns: 3 }`,
        "",
      ).replace("- { name: Ana }", "- { name: Ana, script: ['Our poster is about bees.'] }"),
    );
    const turns = await spoken();
    expect(turns[0]).toMatchObject({ speaker: "mo", text: "Welcome to the session!" });
    // The interrupted line is cut where Ben cut in; the whole line stays in the metadata.
    expect(turns[1]).toMatchObject({ speaker: "ana", metadata: { interruptedBy: "ben", uncutText: "Our poster is about bees." } });
    expect(turns[1].text).toMatch(/^Our( \S+){0,3}—$/);
    expect(turns[2]).toMatchObject({ speaker: "ben", type: "interruption", addressees: ["ana"] });
    expect(turns[1].end).toBeCloseTo(turns[2].start!, 6);
  });

  it("reports unknown names in strategy parameters by field", async () => {
    // Checked before anything runs: no incomplete sessions are left behind.
    await expect(
      h.run(base(`{ type: scene, parties: [{ name: p, members: [Zed] }], snippets: [{ id: a, initiator: p, turns: 1, next: [b] }] }`)),
    ).rejects.toThrow(/strategy\.parties\[0\]\.members\[0\] names unknown participant "Zed"; strategy\.snippets\[0\]\.next names unknown snippet "b"/);
    expect(await h.sessions()).toHaveLength(0);
  });
});

import { afterEach, beforeEach, expect, it } from "vitest";
import { askedAgent, harness, type Harness } from "./support.js";
import { sessionMetrics, summariseByRole } from "../../src/analysis/stats/metrics.js";
import { summariseSession } from "../../src/cli/sessions.js";
import { assembleReport } from "../../src/report/bundle.js";
import type { StudyData } from "../../src/report/load.js";

let h: Harness;
beforeEach(async () => {
  h = await harness();
  h.server.setHandler((req) => ({ content: `${askedAgent(req)} speaks` }));
});
afterEach(() => h.close());

it("a playbook (simulated) participant is exported as kind simulated and counted apart from humans and agents in every analysis", async () => {
  await h.run(`
id: sim
task: Plan a trip.
participants:
  - { name: Client, kind: simulated-human, playbook: "You want a cheap trip." }
  - { name: Agent }
strategy: { type: round-robin }
stop: { maxTurns: 4 }
`);
  const [session] = await h.sessions();
  expect(session.participants.find((p) => p.id === "client")).toMatchObject({ kind: "simulated" });

  const metrics = sessionMetrics(session);
  expect(metrics.participants.map((p) => [p.participant, p.kind])).toEqual([
    ["client", "simulated"],
    ["agent", "ai"],
  ]);
  expect(
    summariseByRole([metrics])
      .map((r) => r.role)
      .sort(),
  ).toEqual(["ai", "simulated"]);

  expect(summariseSession(session)).toMatchObject({ humans: 0, ais: 1, simulated: 1 });

  const { bundle } = assembleReport({
    name: "s",
    sessions: [session],
    codeSets: [],
    codebooks: new Map(),
    analysis: { files: [], agreement: [], compare: new Map(), topics: null, concepts: null },
    config: { compare: {} },
    warnings: [],
  } as unknown as StudyData);
  expect(bundle.overview.participants).toMatchObject({ human: 0, ai: 1, simulated: 1 });
  expect(bundle.speakers.map((s) => [s.key, s.kind])).toEqual([
    ["Client", "simulated"],
    ["Agent", "ai"],
  ]);
});

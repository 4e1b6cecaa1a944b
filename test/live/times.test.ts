import { afterEach, beforeEach, describe, expect, it } from "vitest";
import Papa from "papaparse";
import { harness, type Harness } from "../orchestrator/support.js";
import { LiveHub } from "../../src/orchestrator/live/hub.js";
import { parseScenario } from "../../src/orchestrator/scenario.js";
import { runCli } from "../support/cli.js";

/**
 * Exact times and order: two people post twice each while an agent is still typing; the session
 * takes all four at once. Each is stored with when it came, in the order it came across people,
 * with its real latency; the turns export carries received_at, latency_s and late.
 */
let h: Harness;
beforeEach(async () => (h = await harness()));
afterEach(() => h.close());

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

describe("times and order of people's posts", () => {
  it("posts taken together keep their receipt times, their order across people and their latency; exports carry them", async () => {
    const scenario = parseScenario(
      `id: t\ntask: Talk.\nparticipants: [{ name: Ann }, { name: Hana, kind: human }, { name: Ivo, kind: human }]\nstrategy: { type: autonomous, pauseSeconds: [0, 0] }\nstop: { maxTurns: 12 }\n`,
      "t.yaml",
    );
    const hub = new LiveHub([{ id: "hana" }, { id: "ivo" }]);
    const postedAt: Record<string, number> = {};
    let calls = 0;
    h.server.setHandler(async () => {
      if (++calls === 1) {
        // While Ann decides (the session is busy), both people post twice, interleaved.
        for (const [who, text] of [
          ["hana", "H1"],
          ["ivo", "I1"],
          ["hana", "H2"],
          ["ivo", "I2"],
        ]) {
          postedAt[text] = Date.now();
          hub.post(who, text);
          await sleep(40);
        }
        return { content: JSON.stringify({ reasoning: "r", action: "message", message: "Ann speaks first.", fileName: null }) };
      }
      return { content: JSON.stringify({ reasoning: "r", action: "wait", message: null, fileName: null }) };
    });
    const started = Date.now();
    setTimeout(() => hub.end(), 1500);
    await h.run(scenario, { human: hub, live: { observer: hub, speed: 20 } });
    const [session] = await h.sessions();
    const people = session.turns.filter((t) => t.speaker === "hana" || t.speaker === "ivo");
    expect(people.map((t) => t.text)).toEqual(["H1", "I1", "H2", "I2"]);
    for (const t of people) {
      const at = postedAt[t.text];
      expect(Math.abs(Date.parse(String(t.metadata!.receivedAt)) - at), t.text).toBeLessThanOrEqual(5);
      // Nothing was said before these posts: each took from the session's start to its post.
      const latency = t.metadata!.latencySeconds as number;
      expect(Math.abs(latency - (at - started) / 1000), t.text).toBeLessThanOrEqual(0.15);
      expect(t.metadata!.late).toBeUndefined();
    }

    const run = await runCli(["export", h.study, "--format", "csv"]);
    expect(run.code, run.stderr).toBe(0);
    const rows = Papa.parse<Record<string, string>>(run.stdout.trim(), { header: true }).data.filter((r) => r.speaker_id === "hana" || r.speaker_id === "ivo");
    expect(rows.map((r) => [r.text, r.received_at, r.latency_s, r.late])).toEqual(
      people.map((t) => [t.text, t.metadata!.receivedAt, String(t.metadata!.latencySeconds), "false"]),
    );
  });
});

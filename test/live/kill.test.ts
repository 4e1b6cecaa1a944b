import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, readdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { startOpenAiServer, type OpenAiServer } from "../support/openai-server.js";
import { notingAgent } from "../orchestrator/support.js";
import { loadSessions } from "../../src/study/study.js";
import { createRandom } from "../../src/orchestrator/random.js";
import { postWhenRunning, resumeAndEnd, startRun } from "./kill-resume.js";

/**
 * kill -9 of `colloquy run --serve` while two people post, at a random moment, then `--resume`:
 * every post acknowledged before the kill is in the session once, in the order it was sent,
 * the pages keep their links, and the session goes on. TRIALS=n runs more trials (the report's figure).
 */
let server: OpenAiServer;
beforeAll(async () => {
  // The agent answers every time it is asked, after 30-80 ms (so kills also land mid-request).
  server = await startOpenAiServer({ handler: notingAgent((n) => 30 + (n % 6) * 10) });
});
afterAll(() => server?.close());

const SCENARIO = `id: kill
task: Plan a picnic.
participants: [{ name: Ann }, { name: Hana, kind: human }, { name: Ivo, kind: human }]
strategy: { type: autonomous, pauseSeconds: [1, 3] }
stop: { maxTurns: 400 }
`;

const trials = Number(process.env.TRIALS ?? 3);

describe("kill -9 of a live run, then --resume", () => {
  it(
    `loses no acknowledged word over ${trials} trials at random moments; the same links serve the resumed session`,
    async () => {
      const random = createRandom(Number(process.env.SEED ?? 37));
      let acknowledgedWords = 0;
      /** Milliseconds from sending a post to its acknowledgement (journaled and synced first). */
      const ackMs: number[] = [];
      for (let trial = 0; trial < trials; trial++) {
        const dir = await mkdtemp(join(tmpdir(), "colloquy-kill-"));
        const study = join(dir, "study");
        const scenario = join(dir, "kill.yaml");
        await writeFile(scenario, SCENARIO);
        const args = [scenario, "--serve", "--study", study, "--base-url", server.url, "--model", "test-model", "--speed", "20"];
        const first = await startRun(args, ["Hana", "Ivo"]);
        await first.connect();
        const acked: string[] = [];
        const unsure: string[] = [];
        await postWhenRunning(first, "Hana", `t${trial} w0 from Hana`);
        acked.push(`t${trial} w0 from Hana`);
        // Posts go out one after another from both people; the kill lands after a random number of them, mid-post.
        const posts = 2 + Math.floor(random.next() * 12);
        for (let i = 1; i <= posts; i++) {
          const text = `t${trial} w${i} from ${i % 2 ? "Ivo" : "Hana"}`;
          const sentAt = performance.now();
          const sent = first.post(i % 2 ? "Ivo" : "Hana", text).then((status) => {
            if (status === 200) ackMs.push(performance.now() - sentAt);
            return status;
          });
          if (i === posts) {
            await sleep(random.next() * 15);
            first.child.kill("SIGKILL");
            if ((await sent) === 200) acked.push(text);
            else unsure.push(text);
          } else {
            expect(await sent).toBe(200);
            acked.push(text);
            await sleep(random.next() * 60);
          }
        }
        expect(await first.exit).toBe(137);

        const second = await startRun([...args, "--resume"], ["Hana", "Ivo"]);
        expect(second.links).toEqual(first.links);
        expect(second.operator).toBe(first.operator);
        const seen = await second.connect();
        const after = `t${trial} after the resume from Ivo`;
        await postWhenRunning(second, "Ivo", after);
        await sleep(100);
        expect(await second.control("end")).toBe(200);
        expect(await second.exit, second.stderr()).toBe(0);
        expect(second.stderr()).toContain("(resumed from its journal)");
        // The reconnected page received the words said before the kill.
        expect(seen().Hana).toContain(`t${trial} w0 from Hana`);

        const [session] = await loadSessions(study);
        expect(session.metadata.incomplete).toBe(false);
        expect((session.metadata.orchestrator as { notes: { resumed?: unknown[] } }).notes.resumed).toHaveLength(1);
        const said = session.turns.filter((t) => t.speaker === "hana" || t.speaker === "ivo").map((t) => t.text);
        // Once each, in the order sent; a post cut off by the kill before its answer is there at most once.
        expect(said.filter((t) => t !== after)).toEqual([...acked, ...unsure].filter((t) => said.includes(t)));
        for (const text of acked) expect(said.filter((t) => t === text)).toHaveLength(1);
        expect(said.at(-1)).toBe(after);
        expect(await readdir(join(study, ".colloquy"))).toEqual([]);
        acknowledgedWords += acked.length;
        console.log(`kill -9 trial ${trial + 1}: ${acked.length} acknowledged posts present once, in order (${unsure.length} cut off by the kill)`);
      }
      ackMs.sort((a, b) => a - b);
      const at = (q: number) => ackMs[Math.min(ackMs.length - 1, Math.floor(q * ackMs.length))].toFixed(1);
      console.log(
        `kill -9 trials: ${trials}; acknowledged posts: ${acknowledgedWords}, all present once, in order; post to acknowledgement: p50 ${at(0.5)} ms, p95 ${at(0.95)} ms`,
      );
    },
    60_000 + trials * 30_000,
  );

  it("SIGINT saves the live session as incomplete with every post; --resume goes on with it (the interruption is not taken as the operator's end)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-sigint-"));
    const study = join(dir, "study");
    const scenario = join(dir, "kill.yaml");
    await writeFile(scenario, SCENARIO);
    const args = [scenario, "--serve", "--study", study, "--base-url", server.url, "--model", "test-model", "--speed", "20"];
    const first = await startRun(args, ["Hana", "Ivo"]);
    await first.connect();
    await postWhenRunning(first, "Hana", "Before Ctrl-C.");
    expect(await first.post("Ivo", "Ivo too.")).toBe(200);
    first.child.kill("SIGINT");
    expect(await first.exit, first.stderr()).toBe(130);
    const [saved] = await loadSessions(study);
    expect(saved.metadata.incomplete).toBe(true);
    const notes = (session: typeof saved) =>
      (session.metadata.orchestrator as { notes: { realTime: { startedAt: string }; resumed?: { at: string }[] } }).notes;
    const startedAt = notes(saved).realTime.startedAt;
    expect(saved.turns.filter((t) => t.speaker === "hana" || t.speaker === "ivo").map((t) => t.text)).toEqual(["Before Ctrl-C.", "Ivo too."]);

    await resumeAndEnd(args, ["Hana", "Ivo"], "Hana", "After the resume.");
    const [session] = await loadSessions(study);
    const people = session.turns.filter((t) => t.speaker === "hana" || t.speaker === "ivo");
    expect(people.map((t) => [t.text, Boolean(t.metadata?.late)])).toEqual([
      ["Before Ctrl-C.", false],
      ["Ivo too.", false],
      ["After the resume.", false],
    ]);
    expect((session.metadata.orchestrator as { endReason: string }).endReason).toBe("the operator ended the session");
    // The session started when its first run did; the resume is recorded as one, after it.
    expect(notes(session).realTime.startedAt).toBe(startedAt);
    expect(Date.parse(notes(session).resumed![0].at)).toBeGreaterThan(Date.parse(startedAt));
  }, 60_000);
});

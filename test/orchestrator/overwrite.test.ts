import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { askedAgent, harness, type Harness } from "./support.js";
import { runCli } from "../support/cli.js";
import { identifyArtifact } from "../../src/study/artifacts.js";
import { readSessionFile } from "../../src/transcript/io.js";
import { memoryReporter } from "../../src/util/reporter.js";
import { appendCodes, readCodes } from "../../src/coding/store.js";
import { readStaleCodes } from "../../src/coding/stale.js";
import { turnFingerprint } from "../../src/transcript/fingerprint.js";

/** A person and a bot taking turns: the person's words exist nowhere but in the session file. */
const chat = `
id: chat
task: Talk about the garden.
participants: [{ name: Dana, kind: human }, { name: Bot }]
strategy: { type: round-robin }
stop: { maxTurns: 4 }
`;

let h: Harness;
beforeEach(async () => {
  h = await harness();
  h.server.setHandler((req) => ({ content: `${askedAgent(req)} answers` }));
});
afterEach(() => h.close());

const sessionFile = () => join(h.study, "sessions", "chat-default-1.json");
const backups = async () => (await readdir(join(h.study, "backups")).catch(() => [] as string[])).sort();

describe("colloquy run --overwrite keeps what people said", () => {
  it("a failed overwrite leaves the session in place and keeps the attempt aside; a good one keeps the replaced session", async () => {
    const [first] = await h.run(chat, { humanAnswers: ["I planted tomatoes.", "They need water."] });
    expect(first.status).toBe("completed");
    const original = await readFile(sessionFile(), "utf8");
    expect((await readSessionFile(sessionFile())).turns.filter((t) => t.speaker === "dana").map((t) => t.text)).toEqual([
      "I planted tomatoes.",
      "They need water.",
    ]);

    // The rerun: the person answers, then the endpoint fails (the harness makes no retries).
    h.server.setHandler(() => ({ status: 500, message: "the model is down" }));
    const reporter = memoryReporter();
    const [failed] = await h.run(chat, { overwrite: true, humanAnswers: ["Something new."], reporter });
    expect(failed.status).toBe("failed");
    expect(await readFile(sessionFile(), "utf8")).toBe(original);
    expect(failed.backup).toMatchObject({ kind: "failed", path: expect.stringMatching(/^backups\/chat-default-1\.failed-[0-9T-]+Z\.json$/) });
    const attempt = await readSessionFile(join(h.study, failed.backup!.path));
    expect(attempt.turns.map((t) => t.text)).toEqual(["Something new."]);
    expect(attempt.metadata.incomplete).toBe(true);
    expect(reporter.warnings.join("\n")).toContain(`The session already in sessions/ was left as it was; this attempt was saved to ${failed.backup!.path}`);
    // Backups are never read as sessions.
    expect((await h.sessions()).map((s) => s.id)).toEqual(["chat-default-1"]);

    // A rerun that works replaces the session, after copying it byte for byte.
    h.server.setHandler((req) => ({ content: `${askedAgent(req)} answers again` }));
    const [good] = await h.run(chat, { overwrite: true, humanAnswers: ["Fresh start.", "And water."] });
    expect(good.status, good.reason).toBe("completed");
    expect(good.backup).toMatchObject({ kind: "replaced", path: expect.stringMatching(/^backups\/chat-default-1\.replaced-[0-9T-]+Z\.json$/) });
    expect(await readFile(join(h.study, good.backup!.path), "utf8")).toBe(original);
    expect((await readSessionFile(sessionFile())).turns[0].text).toBe("Fresh start.");
    const files = await backups();
    expect(files).toHaveLength(2);
    for (const file of files) expect(identifyArtifact("backups", file)?.artifact.name).toBe("sessionBackup");
  });

  it("codes of the replaced session never land on the new run's turns: they go to the stale list", async () => {
    await h.run(chat, { humanAnswers: ["I planted tomatoes.", "They need water."] });
    const first = await readSessionFile(sessionFile());
    // A human coder coded every turn of the first run (legacy records without fingerprints too).
    await appendCodes(
      h.study,
      first.turns.map((t, i) => ({
        session: first.id,
        turn: t.id,
        ...(i % 2 ? {} : { fingerprint: turnFingerprint(t) }),
        codebook: "bales-ipa",
        codebookVersion: "1",
        coder: "human:alice",
        codes: ["agrees"],
        rationale: t.text,
        provenance: {},
        createdAt: "2026-11-01T00:00:00Z",
      })),
    );
    const reporter = memoryReporter();
    const [again] = await h.run(chat, { overwrite: true, humanAnswers: ["Something else.", "Entirely."], reporter });
    expect(again.status).toBe("completed");
    const now = await readSessionFile(sessionFile());
    const onTurns = await readCodes(h.study, "bales-ipa", "human:alice");
    for (const r of onTurns) expect(now.turns.find((t) => t.id === r.turn)?.text).toBe(r.rationale);
    const stale = await readStaleCodes(h.study, "bales-ipa", "human:alice");
    expect(onTurns.length + stale.length).toBe(first.turns.length);
    expect(stale.length).toBeGreaterThan(0);
    expect(reporter.warnings.join("\n")).toMatch(/code\(s\) of the session it replaces no longer match a turn/);
  });

  it("the command says where the backup is and how to go on", async () => {
    const scenario = join(h.study, "..", "bots.yaml");
    await writeFile(scenario, "id: bots\ntask: Talk.\nparticipants: [{ name: Ann }, { name: Bob }]\nstrategy: { type: round-robin }\nstop: { maxTurns: 2 }\n");
    const args = ["run", scenario, "--study", h.study, "--base-url", h.server.url, "--model", "test-model", "--no-cache"];
    expect((await runCli(args)).code).toBe(0);
    const original = await readFile(join(h.study, "sessions", "bots-default-1.json"), "utf8");

    h.server.setHandler(() => ({ status: 400, message: "bad request" }));
    const failed = await runCli([...args, "--overwrite"]);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(
      /failed {4}bots-default-1 {2}0 turns .*\(the session already there was left as it was; this attempt is in backups\/bots-default-1\.failed-[0-9T-]+Z\.json\)/,
    );
    expect(failed.stderr).toMatch(
      /1 --overwrite run\(s\) failed; the sessions already there were left as they were \(the attempts are in backups\/bots-default-1\.failed-.*\.json\); fix the cause and run again with --overwrite/,
    );
    expect(await readFile(join(h.study, "sessions", "bots-default-1.json"), "utf8")).toBe(original);

    h.server.setHandler((req) => ({ content: `${askedAgent(req)} again` }));
    const good = await runCli([...args, "--overwrite"]);
    expect(good.code, good.stderr).toBe(0);
    expect(good.stdout).toMatch(
      /completed bots-default-1 {2}2 turns .*\(the session it replaced is kept in backups\/bots-default-1\.replaced-[0-9T-]+Z\.json\)/,
    );
  });
});

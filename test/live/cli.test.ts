import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startOpenAiServer } from "../support/openai-server.js";
import { askedAgent } from "../orchestrator/support.js";
import { loadSessions } from "../../src/study/study.js";

/** `colloquy run <chat.yaml> --serve` as a real process: once it says `ready`, Me's and the operator's links, and requests as either. */
async function serve(scenarioText: string, ready: string) {
  const server = await startOpenAiServer({ handler: (req) => ({ content: `${askedAgent(req)} replies` }) });
  const dir = await mkdtemp(join(tmpdir(), "colloquy-live-"));
  const study = join(dir, "study");
  const scenario = join(dir, "chat.yaml");
  await writeFile(scenario, scenarioText);
  const bin = join(import.meta.dirname, "../support/colloquy-bin.ts");
  const child = spawn(
    process.execPath,
    ["--import", "tsx", bin, "run", scenario, "--serve", "--study", study, "--base-url", server.url, "--model", "test-model"],
    {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, OPENAI_API_KEY: "" },
    },
  );
  let stderr = "";
  /** Resolves once the run has written `text` to stderr. */
  const said = (text: string) =>
    new Promise<void>((ok) => {
      const check = () => stderr.includes(text) && ok();
      child.stderr.on("data", check);
      check();
    });
  child.stderr.on("data", (d) => (stderr += d));
  const code = new Promise<number>((resolve) => child.on("close", (c) => resolve(c ?? -1)));
  await said(ready);
  const me = stderr.match(/Me: (http:\/\/127\.0\.0\.1:\d+\/p\/\S+)/)![1];
  const operator = stderr.match(/operator: (http:\/\/127\.0\.0\.1:\d+\/o\/\S+)/)![1];
  const origin = new URL(me).origin;
  const token = (link: string) => new URL(link).pathname.split("/")[2];
  const post = (path: string, who: string, body: unknown) =>
    fetch(`${origin}${path}`, {
      method: "POST",
      headers: { origin, "content-type": "application/json", "x-colloquy-token": token(who) },
      body: JSON.stringify(body),
    });
  /** Open Me's page (its event stream); `until(text)` resolves once the page has received `text`. */
  const open = async () => {
    const reader = (await fetch(`${origin}/events?token=${token(me)}`)).body!.getReader();
    let seen = "";
    const until = async (text: string) => {
      while (!seen.includes(text)) seen += new TextDecoder().decode((await reader.read()).value);
    };
    return { until, close: () => reader.cancel() };
  };
  return { study, me, operator, post, open, said, stderr: () => stderr, code, close: () => server.close() };
}

const CHAT = "id: chat\ntask: Talk.\nparticipants: [{ name: Me, kind: human }, { name: Bot }]\nstrategy: { type: round-robin }\nstop: { maxTurns: 10 }\n";

describe("colloquy run --serve (a real process)", () => {
  it("prints a link per participant and the operator's; the person's words come from their page; the operator ends the session", async () => {
    const run = await serve(CHAT, "Waiting for 1 participant");
    // Opening the page (its event stream) starts the session.
    const page = await run.open();
    await page.until('"type":"ask"');
    expect((await run.post("/api/post", run.me, { text: "Hello from the page" })).status).toBe(200);
    await page.until("Bot replies");
    expect((await run.post("/api/control", run.operator, { action: "end" })).status).toBe(200);
    await page.close();
    expect(await run.code, run.stderr()).toBe(0);
    await run.close();
    const [session] = await loadSessions(run.study);
    expect(session.turns.map((t) => [t.speaker, t.text])).toEqual([
      ["me", "Hello from the page"],
      ["bot", "Bot replies"],
    ]);
    expect(session.metadata.orchestrator).toMatchObject({ endReason: "the operator ended the session" });
  }, 60_000);
});

describe("colloquy run --serve with a study flow (a real process)", () => {
  it("consent, then the waiting room until the operator starts the session; the transcript is there at the end", async () => {
    const run = await serve(
      `${CHAT}studyFlow: { consent: I agree., waitingRoom: true, transcript: true }\n`,
      "Waiting for the operator to start chat-default-1",
    );
    const { me, operator, post } = run;
    expect((await post("/api/join", me, {})).status).toBe(400);
    expect((await post("/api/join", me, { agree: true })).status).toBe(200);
    const page = await run.open();
    // In the waiting room nothing runs: the page hears so, and a post is refused (it stays in the box).
    await page.until('"type":"between","next":"","opening":true');
    expect((await post("/api/post", me, { text: "Too early" })).status).toBe(409);
    expect((await post("/api/control", operator, { action: "next" })).status).toBe(200);
    await page.until('"type":"ask"');
    expect((await post("/api/post", me, { text: "Hello from the page" })).status).toBe(200);
    await page.until("Bot replies");
    expect((await post("/api/control", operator, { action: "end" })).status).toBe(200);
    await page.until('"type":"end"');
    // The run is over, but the pages stay up for the transcripts until the operator closes them.
    await run.said("Close the pages");
    const transcript = await fetch(`${me}/transcript.txt`);
    expect(await transcript.text()).toBe("Group chat\nTalk.\n\nMe (you): Hello from the page\nBot: Bot replies\n");
    expect((await post("/api/control", operator, { action: "next" })).status).toBe(200);
    await page.close();
    expect(await run.code, run.stderr()).toBe(0);
    await run.close();
    const [session] = await loadSessions(run.study);
    expect(Object.keys((session.metadata.orchestrator as { notes: { consent: object } }).notes.consent)).toEqual(["me"]);
  }, 60_000);
});

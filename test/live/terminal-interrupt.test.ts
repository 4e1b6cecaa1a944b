import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startOpenAiServer } from "../support/openai-server.js";
import { askedAgent } from "../orchestrator/support.js";
import { loadSessions } from "../../src/study/study.js";
import { readSessionFile } from "../../src/transcript/io.js";

/** A person at the terminal: Ctrl-C (SIGINT) saves the session as incomplete, kill -9 keeps the journal; --resume goes on. */
describe("colloquy run at the terminal, interrupted", () => {
  it("Ctrl-C saves every line typed (one typed ahead too) as an incomplete session; kill -9 then --resume loses nothing; the session goes on", async () => {
    let n = 0;
    const server = await startOpenAiServer({ handler: (req) => ({ content: `${askedAgent(req)} reply ${++n}`, delayMs: 400 }) });
    const dir = await mkdtemp(join(tmpdir(), "colloquy-term-"));
    const study = join(dir, "study");
    const scenario = join(dir, "chat.yaml");
    await writeFile(
      scenario,
      "id: chat\ntask: Talk.\nparticipants: [{ name: Me, kind: human }, { name: Bot }]\nstrategy: { type: round-robin }\nstop: { maxTurns: 9 }\n",
    );
    const args = ["run", scenario, "--study", study, "--base-url", server.url, "--model", "test-model"];
    const start = (extra: string[] = []) => {
      const child = spawn(process.execPath, ["--import", "tsx", join(import.meta.dirname, "../support/colloquy-bin.ts"), ...args, ...extra], {
        stdio: ["pipe", "pipe", "pipe"],
        env: { ...process.env, OPENAI_API_KEY: "" },
      });
      let stderr = "";
      const prompts = (count: number) =>
        new Promise<void>((ok) => {
          const check = () => (stderr.split("Me> ").length - 1 >= count ? ok() : undefined);
          child.stderr.on("data", (d) => {
            stderr += d;
            check();
          });
          check();
        });
      const exit = new Promise<number>((ok) => child.on("close", (code, signal) => ok(code ?? (signal === "SIGKILL" ? 137 : -1))));
      return { child, prompts, exit, stderr: () => stderr };
    };

    const first = start();
    await first.prompts(1);
    first.child.stdin.write("First line.\n");
    await first.prompts(2);
    // The answer, then a line typed ahead while Bot is still thinking: Ctrl-C lands before anything takes it.
    first.child.stdin.write("Second line.\nTyped ahead.\n");
    await new Promise((ok) => setTimeout(ok, 150));
    first.child.kill("SIGINT");
    expect(await first.exit, first.stderr()).toBe(130);
    expect(first.stderr()).toContain("--resume");
    const saved = await readSessionFile(join(study, "sessions", "chat-default-1.json"));
    expect(saved.metadata.incomplete).toBe(true);
    expect(saved.turns.filter((t) => t.speaker === "me").map((t) => t.text)).toEqual(["First line.", "Second line.", "Typed ahead."]);

    // Resumed: the typed-ahead line is the next answer; kill -9 once the next line has been answered.
    const second = start(["--resume"]);
    await second.prompts(2);
    second.child.stdin.write("Fourth line.\n");
    await second.prompts(3);
    second.child.kill("SIGKILL");
    expect(await second.exit).toBe(137);

    const third = start(["--resume"]);
    await third.prompts(1);
    third.child.stdin.end("Fifth line.\n");
    expect(await third.exit, third.stderr()).toBe(0);
    const [session] = await loadSessions(study);
    expect(session.metadata.incomplete).toBe(false);
    expect(session.turns.filter((t) => t.speaker === "me").map((t) => t.text)).toEqual([
      "First line.",
      "Second line.",
      "Typed ahead.",
      "Fourth line.",
      "Fifth line.",
    ]);
    // Bot's replies before the interruptions were replayed from the journal, not asked for again.
    const bot = (turns: typeof session.turns) => turns.filter((t) => t.speaker === "bot").map((t) => t.text);
    expect(bot(session.turns).slice(0, bot(saved.turns).length)).toEqual(bot(saved.turns));
    expect(new Set(bot(session.turns)).size).toBe(bot(session.turns).length);
    await server.close();
  }, 90_000);
});

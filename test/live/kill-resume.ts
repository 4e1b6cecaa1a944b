import { expect } from "vitest";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/**
 * Drives `colloquy run --serve` as a real process for the kill -9 tests: start it, read its
 * links, open the people's pages (their event streams), post as a person, end it as the operator.
 */
export interface LiveRun {
  child: ChildProcessWithoutNullStreams;
  links: Record<string, string>;
  operator: string;
  stderr: () => string;
  exit: Promise<number>;
  post(person: string, text: string): Promise<number>;
  control(action: "end" | "pause" | "resume"): Promise<number>;
  /** Open every person's event stream (the session starts once all are open); resolves with what each received so far. */
  connect(): Promise<() => Record<string, string>>;
}

export function startRun(args: string[], people: readonly string[]): Promise<LiveRun> {
  const child = spawn(process.execPath, ["--import", "tsx", join(import.meta.dirname, "../support/colloquy-bin.ts"), "run", ...args], {
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, OPENAI_API_KEY: "" },
  });
  let stderr = "";
  const exit = new Promise<number>((ok) => child.on("close", (code, signal) => ok(code ?? (signal === "SIGKILL" ? 137 : -1))));
  return new Promise((ok, fail) => {
    child.stderr.on("data", (d) => {
      stderr += d;
      const found = people.map((p) => stderr.match(new RegExp(`  ${p}: (http://127\\.0\\.0\\.1:\\d+/p/\\S+)`))?.[1]);
      const operator = stderr.match(/operator: (http:\/\/127\.0\.0\.1:\d+\/o\/\S+)/)?.[1];
      if (found.every(Boolean) && operator && stderr.includes("Waiting for"))
        ok(run(child, Object.fromEntries(people.map((p, i) => [p, found[i]!])), operator));
    });
    void exit.then((code) => fail(new Error(`colloquy run exited (${code}) before serving its pages:\n${stderr}`)));
  });

  function run(child: ChildProcessWithoutNullStreams, links: Record<string, string>, operator: string): LiveRun {
    const origin = new URL(operator).origin;
    const token = (link: string) => new URL(link).pathname.split("/")[2];
    const send = (link: string, path: string, body: unknown) =>
      fetch(`${origin}${path}`, {
        method: "POST",
        headers: { origin, "content-type": "application/json", "x-colloquy-token": token(link) },
        body: JSON.stringify(body),
      }).then(
        (r) => r.status,
        () => 0,
      );
    return {
      child,
      links,
      operator,
      stderr: () => stderr,
      exit,
      post: (person, text) => send(links[person], "/api/post", { text }),
      control: (action) => send(operator, "/api/control", { action }),
      async connect() {
        const seen: Record<string, string> = {};
        for (const [person, link] of Object.entries(links)) {
          seen[person] = "";
          const response = await fetch(`${origin}/events?token=${token(link)}`);
          const reader = response.body!.getReader();
          void (async () => {
            for (;;) {
              const chunk = await reader.read().catch(() => ({ done: true, value: undefined }));
              if (chunk.done) return;
              seen[person] += new TextDecoder().decode(chunk.value);
            }
          })();
        }
        return () => seen;
      },
    };
  }
}

/** Post until the session takes posts (409 while none runs yet). */
export async function postWhenRunning(run: LiveRun, person: string, text: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const status = await run.post(person, text);
    if (status === 200) return;
    if (status !== 409) throw new Error(`post answered ${status}:\n${run.stderr()}`);
    await sleep(50);
  }
  throw new Error(`the session never took posts:\n${run.stderr()}`);
}

/** The operator's End, pressed again while no session runs yet (409), as after --resume while the run sets the session up. */
export async function endWhenRunning(run: LiveRun): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const status = await run.control("end");
    if (status === 200) return;
    if (status !== 409) throw new Error(`End answered ${status}:\n${run.stderr()}`);
    await sleep(50);
  }
  throw new Error(`no session ever ran to be ended:\n${run.stderr()}`);
}

/**
 * `--resume` a stopped run with the same arguments, open every page, post once as `person` (after
 * releasing the waiting room when `startNext`), and End the session: the resumed run, ended with 0.
 */
export async function resumeAndEnd(
  args: readonly string[],
  people: readonly string[],
  person: string,
  text: string,
  options: { startNext?: boolean } = {},
): Promise<LiveRun> {
  const second = await startRun([...args, "--resume"], people);
  await second.connect();
  if (options.startNext) expect(await second.control("next" as "end")).toBe(200);
  await postWhenRunning(second, person, text);
  await sleep(100);
  expect(await second.control("end")).toBe(200);
  expect(await second.exit, second.stderr()).toBe(0);
  return second;
}

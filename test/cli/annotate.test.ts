import { createServer, type Server } from "node:http";
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { readFile, rm, writeFile } from "node:fs/promises";
import { existsSync, realpathSync } from "node:fs";
import { hostname } from "node:os";
import { artifacts } from "../../src/study/artifacts.js";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { appendCodes, codesPath, readCodes } from "../../src/coding/store.js";
import type { CodeRecord } from "../../src/coding/records.js";
import { openStudy } from "../../src/stages/context.js";
import { runAnnotate, type RunningAnnotate } from "../../src/stages/annotate.js";
import { loadSessions, saveSession } from "../../src/study/study.js";
import { turnFingerprint } from "../../src/transcript/fingerprint.js";
import { silentReporter } from "../../src/util/reporter.js";
import { launchBrowser, watchErrors } from "../web/browser.js";
import { fixtureSession, humanCodingStudy } from "./human-coding-study.js";

/**
 * The coding page (`colloquy annotate`) in real Chromium: keyboard-only coding, notes, undo,
 * resuming, blindness, adjudication, and the server's refusals (no token, cross-origin POST).
 */

let browser: Browser;
let dir: string;
let study: string;
let running: RunningAnnotate | undefined;
let page: Page;
let errors: string[];

beforeAll(async () => {
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});
beforeEach(async () => {
  ({ dir, study } = await humanCodingStudy());
  page = await browser.newPage();
  errors = watchErrors(page);
});
afterEach(async () => {
  await page.close();
  await running?.close();
  running = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function start(options: Partial<Parameters<typeof runAnnotate>[1]> = {}): Promise<RunningAnnotate> {
  running = await runAnnotate(
    await openStudy(study),
    { coder: "alice", codebook: "bales-ipa", selection: { sessions: ["control-1"] }, ...options },
    silentReporter,
  );
  return running;
}

async function openPage(url: string): Promise<void> {
  await page.goto(url);
  await page.waitForSelector('main[data-ready="true"]');
}

const alice = () => readCodes(study, "bales-ipa", "human:alice");
const at = (index: number) => page.waitForSelector(`main[data-index="${index}"]`);

describe("colloquy annotate: coding", () => {
  it("codes with the keyboard alone: number keys save and advance, N writes a note, U undoes; every answer is on disk at once", async () => {
    const server = await start();
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{32}\/$/);
    await openPage(server.url);
    const sessions = await loadSessions(study);
    const control = sessions.find((s) => s.id === "control-1")!;
    const codeable = control.turns.filter((t) => t.type === "message" && t.text.trim() !== "" && t.speaker !== "sys");
    expect(await page.locator("#context li.target .text").textContent()).toBe(codeable[0].text);
    expect(await page.locator("#progress").textContent()).toContain("0 of 8 coded");

    await page.keyboard.press("3"); // agrees
    await at(1);
    let codes = await alice();
    expect(codes).toHaveLength(1);
    expect(codes[0]).toMatchObject({
      session: "control-1",
      turn: codeable[0].id,
      codes: ["agrees"],
      coder: "human:alice",
      fingerprint: turnFingerprint(codeable[0]),
    });
    expect(codes[0].provenance.via).toBe("colloquy annotate");

    await page.keyboard.press("n");
    await page.keyboard.type("unsure: 4 or 6?");
    await page.keyboard.press("Escape");
    await page.keyboard.press("4"); // gives suggestion
    await at(2);
    codes = await alice();
    expect(codes.find((r) => r.turn === codeable[1].id)).toMatchObject({ codes: ["gives-suggestion"], provenance: { note: "unsure: 4 or 6?" } });
    expect(await page.locator("#progress").textContent()).toContain("2 of 8 coded");

    await page.keyboard.press("u");
    await at(1);
    expect(await page.locator("#status").textContent()).toContain("has no answer now");
    expect((await alice()).map((r) => r.turn)).toEqual([codeable[0].id]);
    // ← goes back to the first turn, which shows its answer pressed.
    await page.keyboard.press("ArrowLeft");
    await at(0);
    expect(await page.locator('#choices button[aria-pressed="true"]').textContent()).toContain("Agrees");
    expect(errors).toEqual([]);
  }, 60_000);

  it("the first answer lists the person under humanCoders in colloquy.json (adjudicated codes are not listed)", async () => {
    const config = async () => (JSON.parse(await readFile(resolve(study, "colloquy.json"), "utf8")) as { humanCoders?: string[] }).humanCoders;
    expect(await config()).toEqual([]);
    const server = await start();
    await openPage(server.url);
    expect(await config()).toEqual([]);
    await page.keyboard.press("3");
    await at(1);
    expect(await config()).toEqual(["human:alice"]);
    await page.keyboard.press("3");
    await at(2);
    expect(await config()).toEqual(["human:alice"]);
  }, 60_000);

  it("Ctrl+Enter in the note before a category leaves the note (no keyboard trap): the next key codes", async () => {
    const server = await start();
    await openPage(server.url);
    await page.keyboard.press("n");
    await page.keyboard.type("not sure yet");
    await page.keyboard.press("Control+Enter");
    expect(await page.locator("#status").textContent()).toContain("choose a category");
    expect(await page.evaluate(() => document.activeElement?.id)).not.toBe("note");
    await page.keyboard.press("3"); // agrees, with the note kept
    await at(1);
    expect(await alice()).toMatchObject([{ codes: ["agrees"], provenance: { note: "not sure yet" } }]);
    expect(errors).toEqual([]);
  }, 60_000);

  it("saves answers at once while `colloquy code` holds the study's writer lock", async () => {
    const server = await start();
    await openPage(server.url);
    // Another process (alive) holding the lock as a coding run does.
    const other = spawn("sleep", ["60"], { stdio: "ignore" });
    const lockFile = artifacts.lock.path(realpathSync(study));
    await writeFile(lockFile, JSON.stringify({ pid: other.pid, host: hostname(), command: "colloquy code", startedAt: new Date().toISOString() }) + "\n");
    try {
      const started = Date.now();
      await page.keyboard.press("3");
      await at(1);
      expect(Date.now() - started).toBeLessThan(3000);
      expect(await page.locator("#status").textContent()).toContain("Saved turn 1");
      expect(await alice()).toHaveLength(1);
      // The run's lock is left as it was.
      expect(JSON.parse(await readFile(lockFile, "utf8")).pid).toBe(other.pid);
    } finally {
      other.kill();
      await rm(lockFile, { force: true });
    }
  }, 60_000);

  it("resumes at the first turn without an answer after the page and the server are closed", async () => {
    let server = await start();
    await openPage(server.url);
    await page.keyboard.press("1");
    await at(1);
    await page.keyboard.press("2");
    await at(2);
    await server.close();
    running = undefined;
    server = await start();
    expect(server.done).toBe(2);
    await openPage(server.url);
    await at(2);
    expect(await page.locator("#progress").textContent()).toContain("2 of 8 coded");
  }, 60_000);

  it("is blind: another coder's codes never reach the page", async () => {
    const sessions = await loadSessions(study);
    const turn = sessions.find((s) => s.id === "control-1")!.turns[1];
    await appendCodes(study, [record("human:bob", "control-1", turn.id, turnFingerprint(turn), ["shows-tension"])]);
    const server = await start();
    await openPage(server.url);
    expect(await page.locator("#compared").isHidden()).toBe(true);
    const item = await page.evaluate(async () => (await fetch("api/item?i=0")).text());
    expect(item).not.toContain("human:bob");
    expect(item).not.toContain("shows-tension");
  }, 60_000);

  it("renders transcript text as text, never as HTML", async () => {
    const session = fixtureSession("html-1", "control", "3");
    session.turns[1].text = `<img src=x onerror="document.title='pwned'"><b>bold</b>`;
    await saveSession(study, session);
    const server = await start({ selection: { sessions: ["html-1"] } });
    await openPage(server.url);
    expect(await page.locator("#context li.target .text").textContent()).toBe(session.turns[1].text);
    expect(await page.locator("#context img, #context b").count()).toBe(0);
    expect(await page.title()).not.toBe("pwned");
  }, 60_000);
});

describe("colloquy annotate --sample", () => {
  it("codes only the sample's turns, in its order, and refuses a scales codebook", async () => {
    const control = (await loadSessions(study)).find((s) => s.id === "control-1")!;
    const [a, b] = [control.turns[6], control.turns[2]];
    const sample = `${dir}/sample.csv`;
    await writeFile(sample, `session,turn,fingerprint\ncontrol-1,${a.id},${turnFingerprint(a)}\ncontrol-1,${b.id},${turnFingerprint(b)}\n`);
    const server = await start({ sample, selection: undefined });
    expect(server.total).toBe(2);
    const first = (await (await fetch(`${server.url}api/item?i=0`)).json()) as { turn: string };
    expect(first.turn).toBe(a.id);
    await server.close();
    running = undefined;
    await expect(start({ codebook: "pragmatic-style" })).rejects.toThrow(/rates scales; the coding page codes categories/);
  });
});

describe("colloquy annotate: the server refuses", () => {
  it("any request without the token, or with a wrong one", async () => {
    const server = await start();
    const origin = server.origin;
    for (const path of ["/", "/api/state", "/app.js", `/${"x".repeat(32)}/`, `/${server.token.slice(0, -1)}/api/state`]) {
      const response = await fetch(origin + path);
      expect(response.status, path).toBe(403);
    }
    expect((await fetch(`${server.url}api/state`)).status).toBe(200);
    const post = await fetch(`${origin}/api/answer`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: origin },
      body: JSON.stringify({ index: 0, codes: ["agrees"] }),
    });
    expect(post.status).toBe(403);
    expect(existsSync(codesPath(study, "bales-ipa", "human:alice"))).toBe(false);
  });

  it("a POST from another origin, even one that knows the token (in Chromium and by hand)", async () => {
    const server = await start();
    // A hostile page on another port of 127.0.0.1 tries every way a page can POST without CORS.
    const hostile: Server = createServer((_req, res) => {
      res.writeHead(200, { "Content-Type": "text/html" });
      res.end(`<!doctype html><title>hostile</title><form id="f" method="POST" action="${server.url}api/answer" enctype="text/plain"><input name='{"index":0,"codes":["agrees"],"x":"' value='"}'></form>
<script>
window.results = [];
fetch(${JSON.stringify(server.url + "api/answer")}, {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"}, body: JSON.stringify({index: 0, codes: ["agrees"]})}).then(() => results.push("no-cors sent"), (e) => results.push("no-cors " + e));
fetch(${JSON.stringify(server.url + "api/answer")}, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({index: 0, codes: ["agrees"]})}).then(() => results.push("cors sent"), (e) => results.push("cors failed"));
</script>`);
    });
    await new Promise<void>((ok) => hostile.listen(0, "127.0.0.1", () => ok()));
    try {
      const address = hostile.address() as { port: number };
      await page.goto(`http://127.0.0.1:${address.port}/`);
      await page.waitForFunction(() => (window as unknown as { results: string[] }).results.length === 2);
      expect(await page.evaluate(() => (window as unknown as { results: string[] }).results)).toContain("cors failed");
      // The form posts too (text/plain, Origin the hostile page).
      await Promise.all([page.waitForURL(/api\/answer$/), page.evaluate(() => (document.getElementById("f") as HTMLFormElement).submit())]);
      expect(await page.locator("body").textContent()).toContain("refused: not from the coding page");
    } finally {
      await new Promise<void>((ok) => hostile.close(() => ok()));
    }
    const byHand = await fetch(`${server.url}api/answer`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: "http://evil.example" },
      body: JSON.stringify({ index: 0, codes: ["agrees"] }),
    });
    expect(byHand.status).toBe(403);
    const sameSite = await fetch(`${server.url}api/answer`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: server.origin, "Sec-Fetch-Site": "cross-site" },
      body: JSON.stringify({ index: 0, codes: ["agrees"] }),
    });
    expect(sameSite.status).toBe(403);
    expect(existsSync(codesPath(study, "bales-ipa", "human:alice"))).toBe(false);
    // The page's own POST goes through.
    const own = await fetch(`${server.url}api/answer`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: server.origin },
      body: JSON.stringify({ index: 0, codes: ["agrees"] }),
    });
    expect(own.status).toBe(200);
    expect(await alice()).toHaveLength(1);
  }, 60_000);
});

describe("colloquy annotate --host 0.0.0.0 (a lab network)", () => {
  it("accepts the page's POST from a loopback origin of the same port, and refuses one naming the wildcard", async () => {
    const server = await start({ host: "0.0.0.0" });
    const port = new URL(server.url).port;
    const post = (origin: string) =>
      fetch(`http://127.0.0.1:${port}/${server.token}/api/answer`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Origin: origin },
        body: JSON.stringify({ index: 0, codes: ["agrees"] }),
      });
    expect((await post(`http://0.0.0.0:${port}`)).status).toBe(403);
    expect((await post(`http://127.0.0.1:${port}`)).status).toBe(200);
    expect(server.url).not.toContain("0.0.0.0");
  });
});

function record(coder: string, session: string, turn: string, fingerprint: string, codes: string[]): CodeRecord {
  return { session, turn, fingerprint, codebook: "bales-ipa", codebookVersion: "1", coder, codes, provenance: {}, createdAt: new Date().toISOString() };
}

describe("colloquy annotate --adjudicate", () => {
  it("shows only the turns the coders coded differently, side by side, and stores human:adjudicated with who decided", async () => {
    const control = (await loadSessions(study)).find((s) => s.id === "control-1")!;
    const [a, b, c] = control.turns.filter((t) => t.type === "message" && t.text.trim() !== "" && t.speaker !== "sys");
    await appendCodes(study, [
      record("human:alice", "control-1", a.id, turnFingerprint(a), ["agrees"]),
      record("human:bob", "control-1", a.id, turnFingerprint(a), ["agrees"]),
      record("human:alice", "control-1", b.id, turnFingerprint(b), ["gives-opinion"]),
      record("human:bob", "control-1", b.id, turnFingerprint(b), ["gives-suggestion"]),
      record("human:alice", "control-1", c.id, turnFingerprint(c), ["gives-orientation"]),
    ]);
    const server = await start({ coder: "carol", adjudicate: ["human:alice", "human:bob"] });
    expect(server.total).toBe(1);
    expect(server.writer).toBe("human:adjudicated");
    await openPage(server.url);
    expect(await page.locator("#compared").isVisible()).toBe(true);
    const boxes = await page.locator("#compared-codes div").allTextContents();
    expect(boxes).toEqual([expect.stringMatching(/human:alice.*Gives opinion/), expect.stringMatching(/human:bob.*Gives suggestion/)]);
    await page.keyboard.press("4");
    await page.waitForSelector("#status:has-text('All 1 turns decided')");
    const decided = await readCodes(study, "bales-ipa", "human:adjudicated");
    expect(decided).toHaveLength(1);
    expect(decided[0]).toMatchObject({
      turn: b.id,
      codes: ["gives-suggestion"],
      provenance: { decidedBy: "carol", between: { "human:alice": ["gives-opinion"], "human:bob": ["gives-suggestion"] } },
    });
    expect(JSON.parse((await readFile(codesPath(study, "bales-ipa", "human:adjudicated"), "utf8")).split("\n")[0]!).run.coder).toBe("human:adjudicated");
    // Adjudicated codes are not listed as a human coder: comparing them with the coders they settle is opt-in.
    expect(JSON.parse(await readFile(resolve(study, "colloquy.json"), "utf8")).humanCoders).toEqual([]);
    expect(errors).toEqual([]);
  }, 60_000);

  it("names a coder without codes", async () => {
    await expect(start({ coder: "carol", adjudicate: ["human:alice", "human:zed"] })).rejects.toThrow(/human:alice has no bales-ipa codes/);
  });
});

describe("colloquy annotate (the command)", () => {
  it("prints the page's address, serves it until Ctrl-C, and a reopened run says how many are done", async () => {
    // A real process (the command runs until SIGINT), started from source with tsx.
    const entry = `import { main } from ${JSON.stringify(resolve("src/cli/main.ts"))}; process.exitCode = await main(process.argv);`;
    const launch = async () => {
      const child = spawn(
        process.execPath,
        [
          "--import",
          "tsx",
          "--input-type=module",
          "-e",
          entry,
          "colloquy",
          "annotate",
          study,
          "--coder",
          "alice",
          "--codebook",
          "bales-ipa",
          "--sessions",
          "control-1",
        ],
        { stdio: ["ignore", "pipe", "pipe"] },
      );
      let out = "";
      child.stdout!.on("data", (c) => (out += c));
      child.stderr!.on("data", (c) => (out += c));
      const url = await new Promise<string>((ok, fail) => {
        const timer = setTimeout(() => fail(new Error(`no URL printed: ${out}`)), 40_000);
        child.stdout!.on("data", () => {
          const m = /Coding page: (http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]+\/)/.exec(out);
          if (m) {
            clearTimeout(timer);
            ok(m[1]);
          }
        });
      });
      const stop = async () => {
        const exited = new Promise<number | null>((ok) => child.on("exit", (code) => ok(code)));
        child.kill("SIGINT");
        return exited;
      };
      return { url, out: () => out, stop };
    };
    const first = await launch();
    expect(first.out()).toContain("human:alice / bales-ipa: 0 of 8 turn(s) done");
    await openPage(first.url);
    await page.keyboard.press("6");
    await at(1);
    expect(await first.stop()).toBe(0);
    expect((await alice()).map((r) => r.codes)).toEqual([["gives-orientation"]]);
    const second = await launch();
    expect(second.out()).toContain("human:alice / bales-ipa: 1 of 8 turn(s) done");
    expect(await second.stop()).toBe(0);
  }, 90_000);
});

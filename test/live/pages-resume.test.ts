import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { launchBrowser, watchErrors } from "../web/browser.js";
import { startOpenAiServer, type OpenAiServer } from "../support/openai-server.js";
import { askedAgent } from "../orchestrator/support.js";
import { loadSessions } from "../../src/study/study.js";
import { startRun } from "./kill-resume.js";

/**
 * Two people and an operator in Chromium on a real `colloquy run --serve`: the pages show nothing
 * of the design; kill -9 of the run, the pages say the connection is lost and keep what is typed;
 * `--resume` serves the same links, the pages say they reconnected, and every word sent is kept.
 */
let browser: Browser;
let server: OpenAiServer;
beforeAll(async () => {
  browser = await launchBrowser();
  let n = 0;
  server = await startOpenAiServer({
    handler: (req) => ({
      content: JSON.stringify({ reasoning: "SECRET-REASONING", action: n++ % 2 ? "wait" : "message", message: `${askedAgent(req)} note ${n}`, fileName: null }),
    }),
  });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function send(page: Page, text: string): Promise<void> {
  await page.fill("#text", text);
  await page.click("#send");
}

describe("live pages across kill -9 and --resume", () => {
  it("pages are blind to the design, say when the connection is lost and when it is back, and no word sent is lost", async () => {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-pages-"));
    const study = join(dir, "study");
    const scenario = join(dir, "lab.yaml");
    await writeFile(
      scenario,
      "id: lab\ntitle: Picnic study\ntask: Plan a picnic.\nparticipants: [{ name: Ann }, { name: Hana, kind: human }, { name: Ivo, kind: human }]\n" +
        "strategy: { type: autonomous, pauseSeconds: [1, 2] }\nconditions: [{ name: secretcondition }]\nstop: { maxTurns: 200 }\n",
    );
    const args = [scenario, "--serve", "--study", study, "--base-url", server.url, "--model", "test-model", "--speed", "10"];
    const first = await startRun(args, ["Hana", "Ivo"]);
    const context = await browser.newContext();
    const [hana, ivo, operator] = [await context.newPage(), await context.newPage(), await context.newPage()];
    const errors = [hana, ivo].map((p) => watchErrors(p));
    await Promise.all([hana.goto(first.links.Hana), ivo.goto(first.links.Ivo), operator.goto(first.operator)]);
    await hana.waitForSelector('body[data-ready="true"]');
    await ivo.waitForSelector('body[data-ready="true"]');

    // The operator sees who has joined.
    await operator.waitForFunction(() => document.body.dataset.joined === "2");
    expect(await operator.textContent("#joined")).toMatch(/^Joined: (Hana, Ivo|Ivo, Hana)$/);
    await send(hana, "Hana before the crash.");
    await ivo.waitForSelector('#log li[data-speaker="hana"] .text >> text="Hana before the crash."');
    await send(ivo, "Ivo before the crash.");
    await hana.waitForSelector('#log li[data-speaker="ivo"] .text >> text="Ivo before the crash."');
    await operator.waitForSelector("#log li.reasoning");

    // Blind: no condition, no strategy, no kinds, no reasoning on the people's pages; the operator sees the condition.
    for (const page of [hana, ivo]) {
      const html = await page.content();
      for (const secret of ["secretcondition", "autonomous", "SECRET-REASONING", '"kind"', "lab-secretcondition"]) expect(html).not.toContain(secret);
      expect(await page.textContent("#title")).toBe("Picnic study");
    }
    expect(await operator.textContent("#title")).toContain("secretcondition");

    first.child.kill("SIGKILL");
    await first.exit;
    await hana.waitForSelector('body[data-connection="lost"]');
    expect(await hana.textContent("#status")).toMatch(/Connection to the session lost/);
    // Sent while the run is down: refused, the words stay in the box.
    await send(hana, "Hana during the outage.");
    await hana.waitForFunction(() => document.getElementById("status")!.textContent!.startsWith("Not sent"));
    expect(await hana.inputValue("#text")).toBe("Hana during the outage.");

    const second = await startRun([...args, "--resume"], ["Hana", "Ivo"]);
    expect(second.links).toEqual(first.links);
    await hana.waitForSelector('body[data-connection="reconnected"]', { timeout: 20_000 });
    await ivo.waitForSelector('body[data-connection="reconnected"]', { timeout: 20_000 });
    expect(await ivo.textContent("#status")).toMatch(/Reconnected: the session goes on/);
    // The reconnected pages show what was said before the crash.
    await ivo.waitForSelector('#log li[data-speaker="hana"] .text >> text="Hana before the crash."');
    await hana.click("#send");
    await ivo.waitForSelector('#log li[data-speaker="hana"] .text >> text="Hana during the outage."');
    // Ivo's page may show the turn before Hana's page has its reply and clears the box: wait for it.
    await hana.waitForFunction(() => (document.getElementById("text") as HTMLTextAreaElement).value === "");
    await operator.reload();
    await operator.waitForSelector('body[data-ready="true"]');
    await operator.click("#end");
    expect(await second.exit, second.stderr()).toBe(0);
    await hana.screenshot({ path: "test-output/screenshots/live-resumed-participant.png" });

    const [session] = await loadSessions(study);
    const said = session.turns.filter((t) => t.speaker === "hana" || t.speaker === "ivo").map((t) => t.text);
    expect(said).toEqual(["Hana before the crash.", "Ivo before the crash.", "Hana during the outage."]);
    // The page's own errors: the refused post while the run was down is the only one.
    expect(errors.flat().filter((e) => !/Failed to load resource|ERR_CONNECTION_REFUSED|net::/.test(e))).toEqual([]);
    await context.close();
  }, 120_000);
});

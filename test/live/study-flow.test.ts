import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { launchBrowser, watchErrors } from "../web/browser.js";
import { askedAgent, harness, userText, type Harness } from "../orchestrator/support.js";
import { parseScenario } from "../../src/orchestrator/scenario.js";
import { serveLive } from "../../src/orchestrator/live/index.js";

let browser: Browser;
let h: Harness;
beforeAll(async () => {
  browser = await launchBrowser();
  h = await harness();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

const scenario = parseScenario(
  `
id: flow
task: Plan the lab's open day.
participants: [{ name: Ann }, { name: Hana, kind: human }, { name: Ivo, kind: human }]
strategy: { type: autonomous, pauseSeconds: [1, 2] }
stop: { maxTurns: 30 }
studyFlow:
  instructions: "You will chat for about ten minutes.\\nBe yourself."
  consent: "I agree that my messages are stored for research. <b>Not bold</b>"
  waitingRoom: true
  transcript: true
`,
  "flow.yaml",
);

describe("the study flow on the pages", () => {
  it("consent before joining, a waiting room the operator releases, and each person's transcript to download at the end", async () => {
    h.server.setHandler((req) =>
      userText(req).includes("<i>Hello</i> from Hana") && askedAgent(req) === "Ann"
        ? { content: JSON.stringify({ reasoning: "r", action: "message", message: "Welcome, <script>Hana</script>.", fileName: null }) }
        : { content: JSON.stringify({ reasoning: "r", action: "wait", message: null, fileName: null }) },
    );
    const live = await serveLive(scenario);
    const context = await browser.newContext({ acceptDownloads: true });
    try {
      const [hana, ivo, operator] = [await context.newPage(), await context.newPage(), await context.newPage()];
      const errors = [hana, ivo, operator].map((p) => watchErrors(p));
      const [hanaLink, ivoLink] = live.people.map((p) => p.link);
      await Promise.all([hana.goto(hanaLink), ivo.goto(ivoLink), operator.goto(live.server.links.operator)]);

      // Before joining: the instructions and the consent, as text; nobody has joined until they agree.
      await hana.waitForSelector('body[data-intro="true"]');
      expect(await hana.textContent("#instructions")).toBe("You will chat for about ten minutes.\nBe yourself.");
      expect(await hana.textContent("#consent")).toBe("I agree that my messages are stored for research. <b>Not bold</b>");
      expect(await hana.locator("#consent b").count()).toBe(0);
      expect(await hana.textContent("#join")).toBe("I agree and join");
      expect(await hana.locator("#compose").isVisible()).toBe(false);
      expect(live.hub.connected.size).toBe(0);

      // The waiting room (what colloquy run --serve does before the first session of a scenario with one).
      let released = false;
      const waitingRoom = live.hub.awaitNext("flow-default-1", "opening").then(() => (released = true));
      await operator.waitForSelector('#next:not([disabled]) >> text="Start the session"');
      expect(await operator.textContent("#status")).toBe("Waiting room: start flow-default-1 when everyone has joined.");
      await hana.click("#join");
      await hana.waitForFunction(() => document.getElementById("status")!.textContent!.includes("waiting room"));
      await operator.waitForFunction(() => document.getElementById("joined")!.textContent!.includes("not here"));
      await ivo.click("#join");
      await operator.waitForSelector('body[data-joined="2"]');
      expect(released).toBe(false);
      await operator.click("#next");
      await waitingRoom;

      const running = h.run(scenario, { human: live.hub, live: { observer: live.hub, speed: 10 } });
      await hana.waitForSelector('body[data-ready="true"]');
      await hana.fill("#text", "<i>Hello</i> from Hana");
      await hana.press("#text", "Enter");
      await hana.waitForSelector('#log li[data-speaker="ann"]');
      await operator.click("#end");
      const [outcome] = await running;
      expect(outcome.status, outcome.reason).toBe("completed");

      // Each person downloads the session as they saw it: plain text from their own page's address.
      const link = hana.locator("#transcript");
      await link.waitFor();
      const [download] = await Promise.all([hana.waitForEvent("download"), link.click()]);
      expect(download.suggestedFilename()).toBe("transcript.txt");
      const text = await hana.evaluate(async () => {
        const r = await fetch(document.getElementById("transcript")!.getAttribute("href")!);
        return { type: r.headers.get("content-type"), disposition: r.headers.get("content-disposition"), body: await r.text() };
      });
      expect(text.type).toBe("text/plain; charset=utf-8");
      expect(text.disposition).toBe('attachment; filename="transcript.txt"');
      expect(text.body).toBe("Group chat\nPlan the lab's open day.\n\nHana (you): <i>Hello</i> from Hana\nAnn: Welcome, <script>Hana</script>.\n");
      const ivoCopy = await ivo.evaluate(async () => (await fetch(location.pathname + "/transcript.txt")).text());
      expect(ivoCopy).toContain("Hana: <i>Hello</i> from Hana");
      expect(ivoCopy).not.toContain("(you)");
      // Token-protected: no transcript without a participant's token, none for the operator, none from another origin's page.
      const origin = live.server.url;
      expect((await fetch(`${origin}/p/not-a-token/transcript.txt`)).status).toBe(404);
      expect((await fetch(`${live.server.links.operator}/transcript.txt`)).status).toBe(404);
      expect((await fetch(`${hanaLink}/transcript.txt`)).headers.get("cross-origin-resource-policy")).toBe("same-origin");

      // When each person agreed is stored with the session.
      const [session] = await h.sessions();
      const consent = (session.metadata.orchestrator as { notes: { consent: Record<string, string> } }).notes.consent;
      expect(Object.keys(consent).sort()).toEqual(["hana", "ivo"]);
      expect(Date.parse(consent.hana)).toBeLessThanOrEqual(Date.parse(consent.ivo));
      await hana.screenshot({ path: "test-output/screenshots/live-study-flow.png" });
      expect(errors.flat()).toEqual([]);
    } finally {
      await context.close();
      await live.server.close();
    }
  }, 90_000);

  it("a scenario without a study flow joins at once and offers no transcript", async () => {
    const plain = parseScenario(
      `id: plain\ntask: T.\nparticipants: [{ name: Ann }, { name: Hana, kind: human }]\nstrategy: { type: autonomous }\n`,
      "plain.yaml",
    );
    const live = await serveLive(plain);
    try {
      const page = await browser.newPage();
      await page.goto(live.people[0].link);
      await live.hub.everyoneConnected();
      expect(await page.locator("#intro").isVisible()).toBe(false);
      expect((await fetch(`${live.people[0].link}/transcript.txt`)).status).toBe(404);
      await page.close();
    } finally {
      await live.server.close();
    }
  }, 30_000);
});

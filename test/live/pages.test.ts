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
id: live
task: Plan the lab's open day.
participants: [{ name: Ann }, { name: Hana, kind: human }, { name: Ivo, kind: human }]
strategy: { type: autonomous, pauseSeconds: [1, 2] }
stop: { maxTurns: 30 }
`,
  "live.yaml",
);

describe("live session pages", () => {
  it("two participants chat live with an agent in Chromium; the operator sees reasoning and ends the session; nobody else does", async () => {
    let answered = false;
    h.server.setHandler((req) => {
      const text = userText(req);
      if (askedAgent(req) === "Ann" && !answered && text.includes("Hello from Hana")) {
        answered = true;
        return {
          content: JSON.stringify({ reasoning: "SECRET-REASONING: Hana greeted us.", action: "message", message: "Hi Hana, Ann here.", fileName: null }),
        };
      }
      return { content: JSON.stringify({ reasoning: "SECRET-REASONING: nothing new.", action: "wait", message: null, fileName: null }) };
    });
    const live = await serveLive(scenario);
    try {
      const [hanaLink, ivoLink] = live.people.map((p) => p.link);
      expect(live.server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const context = await browser.newContext();
      const [hana, ivo, operator] = [await context.newPage(), await context.newPage(), await context.newPage()];
      const errors = [hana, ivo, operator].flatMap((p) => [watchErrors(p)]);
      await Promise.all([hana.goto(hanaLink), ivo.goto(ivoLink), operator.goto(live.server.links.operator)]);
      await live.hub.everyoneConnected();
      const running = h.run(scenario, { human: live.hub, live: { observer: live.hub, speed: 10, answerTimeoutSeconds: 60 } });
      await hana.waitForSelector('body[data-ready="true"]');
      await ivo.waitForSelector('body[data-ready="true"]');

      // Typing shows on the other person's page, then the message arrives live on both.
      await hana.fill("#text", "Hello from Hana");
      await ivo.waitForFunction(() => document.getElementById("typing")!.textContent!.includes("Hana is typing"));
      await hana.press("#text", "Enter");
      await ivo.waitForSelector('#log li[data-speaker="hana"] .text >> text="Hello from Hana"');
      await hana.waitForSelector('#log li[data-speaker="ann"] .text >> text="Hi Hana, Ann here."');
      await ivo.waitForSelector('#log li[data-speaker="ann"]');

      // Text is rendered as text, never HTML; @name addresses a participant.
      await ivo.fill("#text", "@Ann thanks <b>bold</b> <img src=x onerror=alert(1)>");
      await ivo.click("#send");
      const shown = hana.locator('#log li[data-speaker="ivo"]');
      await shown.waitFor();
      expect(await shown.locator(".text").textContent()).toBe("@Ann thanks <b>bold</b> <img src=x onerror=alert(1)>");
      expect(await shown.locator("b, img").count()).toBe(0);
      expect(await shown.locator(".to").textContent()).toContain("Ann");

      // The operator sees private reasoning and decisions; the participants never receive them.
      await operator.waitForSelector("#log li.reasoning .text >> text=/SECRET-REASONING/");
      for (const page of [hana, ivo]) {
        expect(await page.content()).not.toContain("SECRET-REASONING");
        expect(await page.locator("#log details").count()).toBe(0);
      }

      // Pause holds the session; the operator ends it.
      await operator.click("#pause");
      await hana.waitForSelector('body[data-paused="true"]');
      await operator.click("#resume");
      await operator.click("#end");
      const [outcome] = await running;
      expect(outcome).toMatchObject({ status: "completed", reason: "the operator ended the session" });
      await hana.waitForSelector('body[data-ended="true"]');
      await hana.screenshot({ path: "test-output/screenshots/live-participant.png" });
      await operator.screenshot({ path: "test-output/screenshots/live-operator.png" });

      const [session] = await h.sessions();
      const people = session.turns.filter((t) => t.speaker === "hana" || t.speaker === "ivo");
      expect(people.map((t) => [t.speaker, t.text])).toEqual([
        ["hana", "Hello from Hana"],
        ["ivo", "@Ann thanks <b>bold</b> <img src=x onerror=alert(1)>"],
      ]);
      expect(people[1].addressees).toEqual(["ann"]);
      for (const t of people) expect(typeof t.metadata?.receivedAt).toBe("string");
      expect(errors.flat()).toEqual([]);
      await context.close();
    } finally {
      await live.server.close();
    }
  }, 90_000);

  it("a moderated scene: the participant raises a hand with a button and is invited; the operator edits one derail and dismisses another", async () => {
    let n = 0;
    h.server.setHandler((req) => ({ content: `${askedAgent(req)} line ${++n}` }));
    const scene = parseScenario(
      `
id: scene
task: A poster session.
participants: [{ name: Mo }, { name: Ana }, { name: Dee }, { name: Hana, kind: human }]
strategy:
  type: scene
  partyOrder: moderated
  moderator: Mo
  handRaiseProbability: 0
  backchannel: { probability: 0 }
  parties: [{ name: floor, members: [Ana, Hana] }]
  snippets: [{ id: qa, initiator: Ana, turns: 3 }]
  derailers: [{ participant: Dee, probability: 1, length: 1, kinds: [drift], approval: true }]
stop: { maxTurns: 20 }
`,
      "scene.yaml",
    );
    const live = await serveLive(scene);
    try {
      const context = await browser.newContext();
      const [hana, operator] = [await context.newPage(), await context.newPage()];
      const errors = [watchErrors(hana), watchErrors(operator)];
      await Promise.all([hana.goto(live.people[0].link), operator.goto(live.server.links.operator)]);
      await live.hub.everyoneConnected();
      const running = h.run(scene, { human: live.hub, live: { observer: live.hub, answerTimeoutSeconds: 60 } });
      await hana.click('button[data-command="/hand"]');
      const first = operator.locator(".approval").first();
      await first.waitFor();
      await first.locator("textarea").fill("An edited derail about honey.");
      await first.locator('button[data-decision="edit"]').click();
      await operator.waitForSelector('.approval >> nth=0 >> xpath=self::*[not(contains(., "An edited derail"))]');
      await operator.locator('.approval button[data-decision="dismiss"]').first().click();
      await hana.waitForFunction(() => document.getElementById("prompt")!.textContent!.length > 0);
      await hana.fill("#text", "My question is about bees.");
      await hana.click("#send");
      // The derail after Hana's turn: the operator ends the session instead of deciding.
      await operator.locator(".approval").first().waitFor();
      await operator.click("#end");
      const [outcome] = await running;
      expect(outcome.status).toBe("completed");
      const [session] = await h.sessions();
      const current = session.id === "scene-default-1" ? session : (await h.sessions()).find((s) => s.id === "scene-default-1")!;
      expect(current.turns.find((t) => t.speaker === "dee")).toMatchObject({ text: "An edited derail about honey.", metadata: { editedBy: "operator" } });
      expect(current.turns.some((t) => t.text === "the operator rejected a derail by Dee")).toBe(true);
      expect(current.turns.some((t) => t.text === "Hana raises a hand")).toBe(true);
      expect(current.turns.filter((t) => t.speaker === "hana").map((t) => t.text)).toEqual(["My question is about bees."]);
      // Proposals held for approval never reach the participant.
      for (const t of current.turns.filter((t) => t.metadata?.event === "derail-rejected"))
        expect(await hana.content()).not.toContain(String(t.metadata!.proposed));
      expect(errors.flat()).toEqual([]);
      await context.close();
    } finally {
      await live.server.close();
    }
  }, 90_000);

  it("a message the server refuses stays in the box, with the reason shown", async () => {
    // Longer than a message may be: the server answers 400.
    const long = "Words I do not want to lose. ".repeat(400);
    const live = await serveLive(scenario);
    try {
      const context = await browser.newContext();
      const hana = await context.newPage();
      await hana.goto(live.people[0].link);
      await hana.fill("#text", long);
      await hana.click("#send");
      await hana.waitForFunction(() => document.getElementById("status")!.textContent!.length > 0);
      expect(await hana.inputValue("#text")).toBe(long);
      expect(await hana.textContent("#status")).toMatch(/^Not sent: expected \{text\}/);
      await context.close();
    } finally {
      await live.server.close();
    }
  }, 60_000);

  it("refuses writes without the token, from another origin, or not as JSON", async () => {
    const live = await serveLive(scenario);
    try {
      const token = new URL(live.people[0].link).pathname.split("/")[2];
      const post = (headers: Record<string, string>) =>
        fetch(`${live.server.url}/api/post`, { method: "POST", headers, body: JSON.stringify({ text: "hi" }) }).then((r) => r.status);
      const origin = live.server.url;
      expect(await post({ origin, "content-type": "application/json" })).toBe(403);
      expect(await post({ origin: "http://evil.example", "content-type": "application/json", "x-colloquy-token": token })).toBe(403);
      expect(await post({ origin, "content-type": "text/plain", "x-colloquy-token": token })).toBe(415);
      // Past the checks, a post outside a running session is refused so the page keeps it; typing goes through.
      expect(await post({ origin, "content-type": "application/json", "x-colloquy-token": token })).toBe(409);
      expect(
        await fetch(`${live.server.url}/api/typing`, {
          method: "POST",
          headers: { origin, "content-type": "application/json", "x-colloquy-token": token },
          body: "{}",
        }).then((r) => r.status),
      ).toBe(200);
      // A participant cannot use the operator's controls; a wrong token gets no page.
      expect(
        await fetch(`${live.server.url}/api/control`, {
          method: "POST",
          headers: { origin, "content-type": "application/json", "x-colloquy-token": token },
          body: '{"action":"end"}',
        }).then((r) => r.status),
      ).toBe(403);
      expect((await fetch(`${live.server.url}/p/not-a-token`)).status).toBe(404);
      expect((await fetch(`${live.server.url}/o/${token}`)).status).toBe(404);
    } finally {
      await live.server.close();
    }
  });
});

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { request } from "node:http";
import { networkInterfaces } from "node:os";
import { parseScenario } from "../../src/orchestrator/scenario.js";
import { serveLive } from "../../src/orchestrator/live/index.js";
import { serverOrigins, shownHost } from "../../src/util/local-server.js";
import { Conversation } from "../../src/orchestrator/conversation.js";
import type { ChatModel } from "../../src/llm/types.js";
import { silentReporter } from "../../src/util/reporter.js";

/** The live server's checks (review findings S1, S2), made with raw requests: Host and Sec-Fetch-Site set by hand. */
const scenario = parseScenario(
  `
id: live
task: Talk.
participants: [{ name: Ann }, { name: Hana, kind: human }]
strategy: { type: autonomous }
`,
  "live.yaml",
);

let live: Awaited<ReturnType<typeof serveLive>>;
beforeEach(async () => (live = await serveLive(scenario)));
afterEach(() => live.server.close());

function raw(
  method: string,
  path: string,
  headers: Record<string, string>,
  body = "",
): Promise<{ status: number; text: string; headers: import("node:http").IncomingHttpHeaders }> {
  const url = new URL(live.server.url);
  return new Promise((ok, fail) => {
    const req = request(
      { host: url.hostname, port: url.port, method, path, headers: { ...headers, ...(body ? { "content-length": String(Buffer.byteLength(body)) } : {}) } },
      (res) => {
        let text = "";
        res.on("data", (d) => (text += d));
        res.on("end", () => ok({ status: res.statusCode ?? 0, text, headers: res.headers }));
      },
    );
    req.on("error", fail);
    req.end(body);
  });
}

const hanaToken = () => new URL(live.people[0].link).pathname.split("/")[2];
const host = () => new URL(live.server.url).host;
const writeHeaders = (extra: Record<string, string> = {}) => ({
  host: host(),
  origin: live.server.url,
  "content-type": "application/json",
  "x-colloquy-token": hanaToken(),
  ...extra,
});

describe("the live server refuses what did not come from its own page", () => {
  it("a foreign Host is refused, also when Origin matches it (DNS rebinding)", async () => {
    const port = new URL(live.server.url).port;
    expect((await raw("GET", `/p/${hanaToken()}`, { host: `evil.example:${port}` })).status).toBe(421);
    const rebound = await raw("POST", "/api/typing", writeHeaders({ host: `evil.example:${port}`, origin: `http://evil.example:${port}` }), "{}");
    expect(rebound.status).toBe(421);
    expect((await raw("GET", `/p/${hanaToken()}`, { host: host() })).status).toBe(200);
  });

  it("Sec-Fetch-Site other than same-origin is refused; same-origin goes through", async () => {
    expect((await raw("POST", "/api/typing", writeHeaders({ "sec-fetch-site": "cross-site" }), "{}")).status).toBe(403);
    expect((await raw("POST", "/api/typing", writeHeaders({ "sec-fetch-site": "same-site" }), "{}")).status).toBe(403);
    expect((await raw("POST", "/api/typing", writeHeaders({ "sec-fetch-site": "same-origin" }), "{}")).status).toBe(200);
  });

  it("an oversize body is answered 413", async () => {
    const big = JSON.stringify({ text: "x".repeat(100_000) });
    expect((await raw("POST", "/api/post", writeHeaders(), big)).status).toBe(413);
  });

  it("a post while no session runs is refused with 409 (the page keeps the text)", async () => {
    const answer = await raw("POST", "/api/post", writeHeaders(), JSON.stringify({ text: "hi" }));
    expect(answer.status).toBe(409);
  });

  it("End while no session runs is refused with 409 and does not end the session that starts next", async () => {
    const operator = writeHeaders({ "x-colloquy-token": live.hub.operatorToken });
    const end = () => raw("POST", "/api/control", operator, JSON.stringify({ action: "end" }));
    const early = await end();
    expect(early.status).toBe(409);
    expect(JSON.parse(early.text).error).toContain("no session is running");
    live.hub.event({ type: "session", sessionId: "live-default-1", title: "t", task: "Talk.", strategy: "autonomous", controls: [], participants: [] });
    expect(live.hub.endRequested()).toBeUndefined();
    expect((await end()).status).toBe(200);
    expect(live.hub.endRequested()).toBe("the operator ended the session");
  });

  it("the page's script and stylesheet are served only under its token", async () => {
    expect((await raw("GET", "/live.js", { host: host() })).status).toBe(404);
    expect((await raw("GET", "/live.css", { host: host() })).status).toBe(404);
    expect((await raw("GET", "/p/not-a-token/live.js", { host: host() })).status).toBe(404);
    const page = await raw("GET", `/p/${hanaToken()}`, { host: host() });
    expect(page.headers["content-security-policy"]).toContain("default-src 'none'");
    expect(page.headers).toMatchObject({ "x-content-type-options": "nosniff", "x-frame-options": "DENY", "cache-control": "no-store" });
    expect(page.text).toContain(`src="/p/${hanaToken()}/live.js"`);
    expect(page.text).toContain(`href="/p/${hanaToken()}/live.css"`);
    expect((await raw("GET", `/p/${hanaToken()}/live.js`, { host: host() })).status).toBe(200);
    expect((await raw("GET", `/p/${hanaToken()}/live.css`, { host: host() })).status).toBe(200);
    expect((await raw("GET", `/o/${hanaToken()}/live.js`, { host: host() })).status).toBe(404);
  });
});

describe("links and origins for a server on every interface", () => {
  it("with --host 0.0.0.0 the links name the machine's LAN address, and a page opened there can write", async () => {
    const lan =
      Object.values(networkInterfaces())
        .flat()
        .find((a) => a && !a.internal && a.family === "IPv4")?.address ?? "127.0.0.1";
    const wide = await serveLive(scenario, { host: "0.0.0.0" });
    try {
      const link = new URL(wide.people[0].link);
      expect(link.hostname).toBe(lan);
      expect((await fetch(link)).status).toBe(200);
      const typing = await fetch(`${link.origin}/api/typing`, {
        method: "POST",
        headers: { origin: link.origin, "content-type": "application/json", "x-colloquy-token": link.pathname.split("/")[2] },
        body: "{}",
      });
      expect(typing.status).toBe(200);
    } finally {
      await wide.server.close();
    }
  });

  it("links name a real address, never 0.0.0.0; its own origins are fixed at start", () => {
    expect(shownHost("127.0.0.1")).toBe("127.0.0.1");
    expect(shownHost("0.0.0.0")).not.toBe("0.0.0.0");
    expect(serverOrigins("127.0.0.1", 5180)).toContain("http://127.0.0.1:5180");
    expect(serverOrigins("0.0.0.0", 5180)).toContain(`http://${shownHost("0.0.0.0")}:5180`);
    expect(serverOrigins("0.0.0.0", 5180).some((o) => o.includes("0.0.0.0"))).toBe(false);
  });

  it("a derail decided after its approval timed out is refused (410, saying it timed out); an unknown one is 404", async () => {
    const conversation = new Conversation(
      { scenario, condition: scenario.conditions[0], run: 1, seed: 1, sessionId: "live-default-1" },
      { model: undefined as unknown as ChatModel, human: live.hub, reporter: silentReporter, live: { observer: live.hub, answerTimeoutSeconds: 0.05 } },
    );
    expect(await conversation.askApproval({ derailer: "Ann", kind: "drift", proposed: "Did you see the match?" })).toBeNull();
    const operator = writeHeaders({ "x-colloquy-token": live.hub.operatorToken });
    const late = await raw("POST", "/api/approve", operator, JSON.stringify({ id: 1, decision: "approve" }));
    expect(late.status).toBe(410);
    expect(JSON.parse(late.text).error).toBe("derail 1 no longer waits: it timed out (nobody decided within 0.05 s), so it was not said");
    expect((await raw("POST", "/api/approve", operator, JSON.stringify({ id: 2, decision: "approve" }))).status).toBe(404);
  });
});

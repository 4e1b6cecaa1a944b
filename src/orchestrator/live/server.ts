import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import type { LiveHub, Viewer } from "./hub.js";
import { liveCss, livePage, liveScript } from "./page.js";
import { crossOriginReason, hostHeaderAllowed, HttpError, securityHeaders, readJsonBody, serverOrigins, shownHost } from "../../util/local-server.js";

export interface LiveServer {
  /** Base URL, e.g. http://127.0.0.1:5180 */
  url: string;
  port: number;
  /** One link per human participant id, and the operator's. */
  links: { participants: Map<string, string>; operator: string };
  close(): Promise<void>;
}

const headers = securityHeaders();

const postSchema = z.object({ text: z.string().min(1).max(10_000) }).strict();
const joinSchema = z.object({ agree: z.literal(true) }).strict();
const controlSchema = z.object({ action: z.enum(["pause", "resume", "end", "next"]) }).strict();
const approveSchema = z
  .object({ id: z.number().int().positive(), decision: z.enum(["approve", "edit", "dismiss"]), text: z.string().max(10_000).optional() })
  .strict()
  .refine((a) => a.decision !== "edit" || Boolean(a.text?.trim()), { message: "an edit needs its text" });

/**
 * Serve the participant and operator pages of a live session. Every request needs a Host we
 * answer to (DNS rebinding) and every page, script and request its token; requests that write
 * also need a JSON POST from one of the server's own origins (so another site's page cannot
 * post into a session). Binds 127.0.0.1 unless the caller asks otherwise; bound to every
 * interface (0.0.0.0), the links name the machine's LAN address.
 */
export async function startLiveServer(hub: LiveHub, options: { host?: string; port?: number; names?: Map<string, string> } = {}): Promise<LiveServer> {
  const host = options.host ?? "127.0.0.1";
  let origins: string[] = [];
  const server: Server = createServer((req, res) => {
    handle(hub, req, res, { host, origins }).catch((error) => send(res, error instanceof HttpError ? error.status : 500, { error: (error as Error).message }));
  });
  await new Promise<void>((ok, fail) => {
    server.once("error", fail);
    server.listen(options.port ?? 0, host, () => ok());
  });
  const port = (server.address() as AddressInfo).port;
  origins = serverOrigins(host, port);
  const url = `http://${shownHost(host)}:${port}`;
  const participants = new Map([...hub.participantTokens].map(([id, t]) => [id, `${url}/p/${t}`]));
  const sockets = new Set<import("node:net").Socket>();
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  return {
    url,
    port,
    links: { participants, operator: `${url}/o/${hub.operatorToken}` },
    close: () =>
      new Promise((ok) => {
        for (const s of sockets) s.destroy();
        server.close(() => ok());
      }),
  };
}

async function handle(hub: LiveHub, req: IncomingMessage, res: ServerResponse, server: { host: string; origins: readonly string[] }): Promise<void> {
  if (!hostHeaderAllowed(req.headers, server.host)) return send(res, 421, { error: "open the page at the address colloquy run --serve printed" });
  const url = new URL(req.url ?? "/", "http://localhost");
  const path = url.pathname;
  if (req.method === "GET") {
    // The page, its script and its stylesheet all live under the viewer's token.
    const page = path.match(/^\/([po])\/([A-Za-z0-9_-]+)(\/live\.js|\/live\.css|\/intro|\/transcript\.txt)?$/);
    if (page) {
      const viewer = hub.viewerOf(page[2]);
      if (!viewer || (viewer.role === "operator") !== (page[1] === "o")) return text(res, 404, "text/plain", "not found");
      if (page[3] === "/live.js") return text(res, 200, "text/javascript; charset=utf-8", liveScript);
      if (page[3] === "/live.css") return text(res, 200, "text/css; charset=utf-8", liveCss);
      if (page[3] === "/intro") {
        // What a person reads before joining (their page renders it as text).
        const { instructions, consent, transcript } = hub.flow;
        return send(res, 200, { ...(instructions ? { instructions } : {}), ...(consent ? { consent } : {}), transcript });
      }
      if (page[3] === "/transcript.txt") {
        const transcript = viewer.role === "participant" ? hub.transcript(viewer.id) : undefined;
        if (transcript === undefined)
          return text(res, 404, "text/plain; charset=utf-8", "no transcript to download (the scenario offers none, or no session has ended yet)");
        // Plain text, downloaded: never rendered as HTML.
        return text(res, 200, "text/plain; charset=utf-8", transcript, { "content-disposition": 'attachment; filename="transcript.txt"' });
      }
      return text(res, 200, "text/html; charset=utf-8", livePage(viewer.role, `/${page[1]}/${page[2]}`));
    }
    // Browsers ask for an icon on their own; there is none, and a 404 would show as a page error.
    if (path === "/favicon.ico") return text(res, 204, "image/x-icon", "");
    if (path === "/events") {
      const viewer = hub.viewerOf(url.searchParams.get("token"));
      if (!viewer) return send(res, 403, { error: "unknown token" });
      return events(hub, viewer, req, res);
    }
    return text(res, 404, "text/plain", "not found");
  }
  if (req.method !== "POST") return send(res, 405, { error: "method not allowed" });
  // Our own origins only, JSON only: a form or a script on another site cannot write here.
  if (!String(req.headers["content-type"] ?? "").startsWith("application/json")) return send(res, 415, { error: "expected application/json" });
  const why = crossOriginReason(req.headers, server.origins);
  if (why) return send(res, 403, { error: `cross-origin request refused (${why})` });
  const viewer = hub.viewerOf(String(req.headers["x-colloquy-token"] ?? ""));
  if (!viewer) return send(res, 403, { error: "unknown token" });
  const body = await readJsonBody(req);
  if (path === "/api/post" || path === "/api/typing" || path === "/api/pass" || path === "/api/join") {
    if (viewer.role !== "participant") return send(res, 403, { error: "only participants post messages" });
    if (path === "/api/join") {
      if (hub.flow.consent && !joinSchema.safeParse(body).success) return send(res, 400, { error: "expected {agree: true}: joining needs the consent" });
      hub.join(viewer.id);
      return send(res, 200, { ok: true });
    }
    if (path === "/api/pass") return send(res, 200, { ok: hub.pass(viewer.id) });
    if (path === "/api/typing") {
      hub.typing(viewer.id);
      return send(res, 200, { ok: true });
    }
    const parsed = postSchema.safeParse(body);
    if (!parsed.success) return send(res, 400, { error: "expected {text}: a non-empty message of at most 10,000 characters" });
    // Outside a running session nothing can take the words: refused, so the page keeps them.
    if (!hub.post(viewer.id, parsed.data.text))
      return send(res, 409, { error: "no session is running right now: your message was not sent (it is still in the box)" });
    return send(res, 200, { ok: true });
  }
  if (viewer.role !== "operator") return send(res, 403, { error: "operator only" });
  if (path === "/api/control") {
    const parsed = controlSchema.safeParse(body);
    if (!parsed.success) return send(res, 400, { error: "expected {action: pause|resume|end|next}" });
    if (parsed.data.action === "next") return hub.startNext() ? send(res, 200, { ok: true }) : send(res, 409, { error: "no session is waiting to start" });
    if (parsed.data.action === "end") {
      if (!hub.end()) return send(res, 409, { error: "no session is running right now (it has ended, or the next has not started yet): nothing was ended" });
    } else hub.setPaused(parsed.data.action === "pause");
    return send(res, 200, { ok: true });
  }
  if (path === "/api/approve") {
    const parsed = approveSchema.safeParse(body);
    if (!parsed.success) return send(res, 400, { error: "expected {id, decision: approve|edit|dismiss, text for an edit}" });
    const { id, decision, text: edited } = parsed.data;
    const taken = hub.decideApproval(id, decision === "edit" ? { decision, text: edited! } : { decision });
    if (taken.ok) return send(res, 200, { ok: true });
    // Too late is not unknown: the operator is told the derail no longer waits, and why.
    return taken.closed ? send(res, 410, { error: `derail ${id} no longer waits: ${taken.closed}` }) : send(res, 404, { error: `no derail ${id} is waiting` });
  }
  return send(res, 404, { error: "not found" });
}

/** Server-sent events: one JSON message per event, a comment every 15 s to keep the line open. */
function events(hub: LiveHub, viewer: Viewer, req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(200, { ...headers, "content-type": "text/event-stream; charset=utf-8", connection: "keep-alive" });
  res.write(`event: hello\ndata: ${JSON.stringify(viewer)}\n\n`);
  const unsubscribe = hub.subscribe(viewer, (message) => res.write(`data: ${JSON.stringify(message)}\n\n`));
  const keepAlive = setInterval(() => res.write(": keep-alive\n\n"), 15_000);
  req.on("close", () => {
    clearInterval(keepAlive);
    unsubscribe();
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  text(res, status, "application/json; charset=utf-8", JSON.stringify(body));
}

function text(res: ServerResponse, status: number, type: string, body: string, extra: Record<string, string> = {}): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { ...headers, ...extra, "content-type": type, ...(status === 413 ? { connection: "close" } : {}) });
  res.end(body);
}

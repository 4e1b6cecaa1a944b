import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { randomBytes } from "node:crypto";
import {
  crossOriginReason,
  hostHeaderAllowed,
  HttpError,
  securityHeaders,
  readJsonBody,
  sameToken,
  serverOrigins,
  shownHost,
} from "../../util/local-server.js";
import { errorMessage } from "../../util/errors.js";
import { CATEGORY_KEYS, Desk, DeskError } from "./desk.js";
import { ANNOTATE_CSS, annotateHtml, annotateScript } from "./page.js";

/**
 * The coding page's HTTP server. It writes to the study, so it is stricter than the dashboard's:
 *  - bound to 127.0.0.1 unless told otherwise, Host checked (DNS rebinding);
 *  - every request, the page itself included, must carry the per-run random token as the first
 *    path segment (`/<token>/...`), so another local user or a page guessing ports reads nothing;
 *  - a POST must come from the page's own origin: Origin equal to ours, and Sec-Fetch-Site (when
 *    the browser sends it) "same-origin"; its body must be JSON (so a cross-site form cannot
 *    send one without a CORS preflight, which is never granted);
 *  - answers are written one at a time, in the order they arrive.
 */

export interface AnnotateServer {
  url: string;
  origin: string;
  token: string;
  close(): Promise<void>;
}

export interface AnnotateServerOptions {
  host?: string;
  /** 0 = any free port. */
  port?: number;
  /** Title shown on the page (study and coder). */
  title: string;
}

const HEADERS = securityHeaders({ images: true });

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { ...HEADERS, "Content-Type": type, ...(status === 413 ? { Connection: "close" } : {}) });
  res.end(body);
}
const json = (res: ServerResponse, status: number, value: unknown) => send(res, status, "application/json; charset=utf-8", JSON.stringify(value));
const refuse = (res: ServerResponse, status: number, message: string) => json(res, status, { error: message });

function answerOf(value: unknown): { index: number; codes: string[]; note: string } {
  const v = value as { index?: unknown; codes?: unknown; note?: unknown } | null;
  if (!v || typeof v.index !== "number" || !Array.isArray(v.codes) || !v.codes.every((c) => typeof c === "string"))
    throw new DeskError("expected {index, codes: [ids], note}");
  if (v.note !== undefined && typeof v.note !== "string") throw new DeskError("note must be text");
  return { index: v.index, codes: v.codes as string[], note: (v.note as string | undefined) ?? "" };
}

/** What the page needs once: the codebook with its keys, the mode, progress and where to resume. */
function state(desk: Desk, title: string) {
  return {
    title,
    mode: desk.mode.kind,
    writer: desk.writer,
    compared: desk.mode.kind === "adjudicate" ? desk.mode.coders : [],
    codebook: {
      id: desk.codebook.id,
      title: desk.codebook.title,
      version: desk.codebook.version,
      multiple: desk.codebook.multiple,
      instructions: desk.codebook.instructions ?? "",
      categories: desk.codebook.categories.map((c, i) => ({
        id: c.id,
        label: c.label,
        definition: c.definition,
        examples: c.examples,
        key: CATEGORY_KEYS[i] ?? "",
      })),
    },
    total: desk.items.length,
    done: desk.done,
    resume: desk.firstOpen(),
    canUndo: desk.canUndo,
  };
}

/** Serve `desk` until closed. Resolves once listening, with the URL (token included) to open. */
export async function startAnnotateServer(desk: Desk, options: AnnotateServerOptions): Promise<AnnotateServer> {
  const host = options.host ?? "127.0.0.1";
  const token = randomBytes(24).toString("base64url");
  // Fixed once the port is known (src/util/local-server.ts), never read from a request.
  let origins: string[] = [];
  // One write at a time: an undo never overtakes the answer it takes back.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = queue.then(fn, fn);
    queue = next.catch(() => undefined);
    return next;
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!hostHeaderAllowed(req.headers, host)) return refuse(res, 421, "open the page at its printed http://127.0.0.1:<port>/<token>/ address");
    const url = new URL(req.url ?? "/", "http://local");
    const [, given = "", ...rest] = url.pathname.split("/");
    if (!sameToken(given, token)) return refuse(res, 403, "this page needs the address printed by colloquy annotate (with its token)");
    const route = rest.join("/");
    if (req.method === "GET") {
      if (route === "") return send(res, 200, "text/html; charset=utf-8", annotateHtml(options.title));
      if (route === "app.js") return send(res, 200, "text/javascript; charset=utf-8", annotateScript());
      if (route === "style.css") return send(res, 200, "text/css; charset=utf-8", ANNOTATE_CSS);
      if (route === "api/state") return json(res, 200, state(desk, options.title));
      if (route === "api/item") return json(res, 200, desk.view(Number(url.searchParams.get("i"))));
      return refuse(res, 404, "not found");
    }
    if (req.method !== "POST") return refuse(res, 405, "GET or POST only");
    const why = crossOriginReason(req.headers, origins);
    if (why) return refuse(res, 403, `refused: not from the coding page (${why})`);
    if (route === "api/answer") {
      const answer = answerOf(await readJsonBody(req));
      const view = await serial(() => desk.answer(answer.index, answer.codes, answer.note));
      return json(res, 200, { item: view, done: desk.done, canUndo: desk.canUndo });
    }
    if (route === "api/undo") {
      await readJsonBody(req);
      const view = await serial(() => desk.undo());
      return json(res, 200, { item: view, done: desk.done, canUndo: desk.canUndo });
    }
    return refuse(res, 404, "not found");
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      if (res.headersSent) return res.destroy();
      refuse(res, error instanceof HttpError ? error.status : error instanceof DeskError ? 400 : 500, errorMessage(error));
    });
  });
  await new Promise<void>((ok, fail) => {
    server.once("error", fail);
    server.listen(options.port ?? 0, host, () => ok());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : (options.port ?? 0);
  origins = serverOrigins(host, port);
  // The link to open: the bound host, or this machine's LAN address for a wildcard bind.
  const origin = `http://${shownHost(host)}:${port}`;
  return {
    url: `${origin}/${token}/`,
    origin,
    token,
    close: () =>
      new Promise<void>((ok) => {
        server.close(() => ok());
        server.closeAllConnections();
      }),
  };
}

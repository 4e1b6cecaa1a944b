import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createReadStream } from "node:fs";
import { realpath, stat } from "node:fs/promises";
import { extname, join, resolve, sep } from "node:path";
import { SITE_CSP_HEADER } from "./site.js";
import { isIP } from "node:net";

/** A running dashboard server. */
export interface RunningServer {
  url: string;
  host: string;
  port: number;
  close(): Promise<void>;
}

export interface ServeOptions {
  /** Interface to bind; 127.0.0.1 unless told otherwise (the study may hold private transcripts). */
  host?: string;
  /** First port to try (0 = any free port). */
  port?: number;
  /** How many consecutive ports to try when one is taken. */
  attempts?: number;
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".txt": "text/plain; charset=utf-8",
  ".csv": "text/csv; charset=utf-8",
  ".map": "application/json; charset=utf-8",
};

const SECURITY_HEADERS = {
  "X-Content-Type-Options": "nosniff",
  "Content-Security-Policy": SITE_CSP_HEADER,
  "Referrer-Policy": "no-referrer",
  "X-Frame-Options": "DENY",
  "Cross-Origin-Resource-Policy": "same-origin",
};

function send(res: ServerResponse, status: number, message: string, extra: Record<string, string> = {}): void {
  res.writeHead(status, { ...SECURITY_HEADERS, "Content-Type": "text/plain; charset=utf-8", ...extra });
  res.end(message + "\n");
}

/**
 * Map a request path to a file inside `root`, or null when it must be refused: undecodable or
 * NUL-containing paths, backslashes, any ".." or "." segment (also when percent-encoded, since we
 * check after decoding), and anything whose real path (symlinks resolved) leaves the root.
 */
export async function resolveInside(root: string, urlPath: string): Promise<string | null> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (!decoded.startsWith("/") || decoded.includes("\0") || decoded.includes("\\")) return null;
  const segments = decoded.split("/").filter((s) => s.length > 0);
  // Dot segments never; dotfiles neither (nothing the build writes starts with "."; a stray .env must not leak).
  if (segments.some((s) => s.startsWith(".") || /^[A-Za-z]:/.test(s))) return null;
  let target = join(root, ...segments);
  try {
    const info = await stat(target);
    if (info.isDirectory()) target = join(target, "index.html");
    const real = await realpath(target);
    const realRoot = await realpath(root);
    if (real !== realRoot && !real.startsWith(realRoot + sep)) return null;
    return real;
  } catch {
    return null;
  }
}

/**
 * DNS rebinding guard: a hostile page can point its own domain at 127.0.0.1 and read the site
 * through the visitor's browser, but the request then carries that domain in Host. Only
 * localhost, IP literals and the host the server was started with are answered.
 */
export function hostAllowed(hostHeader: string | undefined, boundHost: string): boolean {
  if (!hostHeader) return false;
  const name = hostHeader.startsWith("[") ? hostHeader.slice(0, hostHeader.indexOf("]") + 1) : hostHeader.replace(/:\d+$/, "");
  const lower = name.toLowerCase();
  if (lower === "localhost" || lower === boundHost.toLowerCase() || lower === `[${boundHost.toLowerCase()}]`) return true;
  return isIP(lower.replace(/^\[|\]$/g, "")) !== 0;
}

async function handle(root: string, req: IncomingMessage, res: ServerResponse, boundHost: string): Promise<void> {
  if (!hostAllowed(req.headers.host, boundHost)) {
    send(res, 421, "Misdirected Request: open the dashboard at its printed http://127.0.0.1:<port>/ address");
    return;
  }
  if (req.method !== "GET" && req.method !== "HEAD") {
    send(res, 405, "Method Not Allowed: this server only answers GET and HEAD", { Allow: "GET, HEAD" });
    return;
  }
  const raw = req.url ?? "/";
  if (!raw.startsWith("/")) {
    send(res, 400, "Bad Request");
    return;
  }
  const path = raw.split(/[?#]/, 1)[0];
  const file = await resolveInside(root, path);
  if (!file) {
    send(res, 404, "Not Found");
    return;
  }
  const info = await stat(file).catch(() => null);
  if (!info?.isFile()) {
    send(res, 404, "Not Found");
    return;
  }
  const hashed = /\.[0-9a-f]{12}\.(js|css|json)$/.test(file);
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    "Content-Type": TYPES[extname(file).toLowerCase()] ?? "application/octet-stream",
    "Content-Length": String(info.size),
    "Cache-Control": hashed ? "public, max-age=31536000, immutable" : "no-cache",
  });
  if (req.method === "HEAD") {
    res.end();
    return;
  }
  createReadStream(file)
    .on("error", () => res.destroy())
    .pipe(res);
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((ok, fail) => {
    const onError = (error: Error) => {
      server.off("listening", onListening);
      fail(error);
    };
    const onListening = () => {
      server.off("error", onError);
      const address = server.address();
      ok(typeof address === "object" && address ? address.port : port);
    };
    server.once("error", onError);
    server.once("listening", onListening);
    server.listen(port, host);
  });
}

/**
 * Serve a built site folder (and nothing outside it) over HTTP. When the port is taken, the
 * next ones are tried (`attempts` in all). Resolves once listening, with the URL to print.
 */
export async function startServer(siteDir: string, options: ServeOptions = {}): Promise<RunningServer> {
  const root = resolve(siteDir);
  const host = options.host ?? "127.0.0.1";
  const first = options.port ?? 5173;
  const attempts = first === 0 ? 1 : (options.attempts ?? 20);
  let lastError: unknown;
  for (let i = 0; i < attempts; i++) {
    const server = createServer((req, res) => {
      handle(root, req, res, host).catch(() => {
        if (!res.headersSent) send(res, 500, "Internal Server Error");
        else res.destroy();
      });
    });
    try {
      const port = await listen(server, first + i, host);
      const shown = host.includes(":") ? `[${host}]` : host === "0.0.0.0" ? "127.0.0.1" : host;
      return {
        url: `http://${shown}:${port}/`,
        host,
        port,
        close: () =>
          new Promise<void>((ok) => {
            server.close(() => ok());
            server.closeAllConnections();
          }),
      };
    } catch (error) {
      lastError = error;
      if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE") throw error;
    }
  }
  throw new Error(`ports ${first}-${first + attempts - 1} on ${host} are all taken (${(lastError as Error)?.message}); pass --port <free port>`);
}

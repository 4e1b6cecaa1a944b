import type { IncomingMessage } from "node:http";
import { timingSafeEqual } from "node:crypto";
import { networkInterfaces } from "node:os";
import { hostAllowed } from "../report/server.js";

/**
 * What every local page server that accepts writes (the coding page, the live session pages)
 * checks the same way, so a fix lands in all of them:
 *  - Host is one we answer to (DNS rebinding: a hostile domain pointed at 127.0.0.1 is refused);
 *  - tokens are compared in constant time;
 *  - a POST comes from one of the origins the server itself printed (never one derived from the
 *    request's own headers), Sec-Fetch-Site (when sent) is "same-origin", the body is JSON;
 *  - bodies are read up to a limit (413 past it);
 *  - every answer carries the same strict security headers.
 */

/** An HTTP refusal with its status, thrown by the helpers below and answered by the server. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "HttpError";
  }
}

const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * The headers every answer carries: no sniffing, no framing, no referrer, no caching, and a
 * content security policy that allows only the server's own script, style and requests
 * (`images`: also its own and data: images).
 */
export function securityHeaders(options: { images?: boolean } = {}): Record<string, string> {
  return {
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": options.images ? CSP.replace("connect-src 'self';", "connect-src 'self'; img-src 'self' data:;") : CSP,
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Cache-Control": "no-store",
  };
}

/** Bodies larger than this (bytes) are refused with 413. */
const MAX_JSON_BODY = 64 * 1024;

/** Constant-time comparison of a given token with the real one (false for a missing one). */
export function sameToken(given: string | null | undefined, token: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The Host header names this server (localhost, an IP literal, or the host it was bound to). */
export function hostHeaderAllowed(headers: IncomingMessage["headers"], boundHost: string): boolean {
  return hostAllowed(headers.host, boundHost);
}

function isWildcard(host: string): boolean {
  return host === "0.0.0.0" || host === "::" || host === "";
}

const bracket = (host: string) => (host.includes(":") ? `[${host}]` : host);

/** The machine's own non-loopback addresses (IPv4 first), for links other machines can open. */
function lanAddresses(): string[] {
  const found: string[] = [];
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? [])
      if (!entry.internal && (entry.family === "IPv4" || entry.family === "IPv6") && !entry.address.startsWith("fe80:")) found.push(entry.address);
  }
  return [...found.filter((a) => !a.includes(":")), ...found.filter((a) => a.includes(":"))];
}

/** The host to print in links: the bound host, or for a wildcard bind the LAN address (else 127.0.0.1). */
export function shownHost(boundHost: string): string {
  if (!isWildcard(boundHost)) return bracket(boundHost);
  return bracket(lanAddresses()[0] ?? "127.0.0.1");
}

/**
 * Every origin a page of this server can have: fixed when the server starts, from the bound
 * host and port (and, for a wildcard bind, loopback and the machine's LAN addresses).
 */
export function serverOrigins(boundHost: string, port: number): string[] {
  const loopback = ["127.0.0.1", "localhost", "[::1]"];
  const names = isWildcard(boundHost)
    ? [...loopback, ...lanAddresses().map(bracket)]
    : boundHost === "127.0.0.1" || boundHost === "::1" || boundHost === "localhost"
      ? [bracket(boundHost), ...loopback]
      : [bracket(boundHost)];
  return [...new Set(names)].map((name) => `http://${name}:${port}`);
}

/** Why a POST is refused as not coming from the server's own page, or undefined when it may go on. */
export function crossOriginReason(headers: IncomingMessage["headers"], origins: string | readonly string[]): string | undefined {
  const allowed = typeof origins === "string" ? [origins] : origins;
  if (!headers.origin || !allowed.includes(headers.origin)) return `Origin ${headers.origin ?? "(none)"} is not ${allowed.join(" or ")}`;
  const site = headers["sec-fetch-site"];
  if (site !== undefined && site !== "same-origin") return `Sec-Fetch-Site is ${site}`;
  if (!String(headers["content-type"] ?? "").startsWith("application/json")) return "the body is not application/json";
  return undefined;
}

/** Read a JSON body of at most `limit` bytes: HttpError 413 past it, 400 when it is not JSON. */
export async function readJsonBody(req: IncomingMessage, limit = MAX_JSON_BODY): Promise<unknown> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) throw new HttpError(413, `request body too large (at most ${limit} bytes)`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new HttpError(413, `request body too large (at most ${limit} bytes)`);
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new HttpError(400, "request body is not JSON");
  }
}

import http from "node:http";
import https from "node:https";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";

/**
 * A small fetch for the openai SDK built on node:http(s) with keep-alive agents.
 * Why: the SDK only needs request/response of small JSON bodies, and Node's built-in fetch
 * (undici + web streams) costs about 1 ms of CPU per request on top; at 16 requests in flight
 * against a fast local server that overhead, not the model, bounded a 10,000-turn coding run.
 * Semantics the SDK relies on are kept: abort via `init.signal` rejects with an AbortError
 * (which the SDK maps to its timeout / user-abort errors), network failures reject with the
 * Node error (ECONNREFUSED …) as `cause`-carrying errors, and the result is a real `Response`.
 * Streamed bodies (file uploads) are piped with backpressure; other bodies that are not
 * strings (form data, buffers) go to the global fetch unchanged.
 */
const agents = {
  "http:": new http.Agent({ keepAlive: true, maxSockets: Infinity }),
  "https:": new https.Agent({ keepAlive: true, maxSockets: Infinity }),
};

function abortError(reason: unknown): Error {
  const error = new Error(reason instanceof Error ? reason.message : "The operation was aborted");
  error.name = "AbortError";
  return error;
}

export const nodeFetch = (async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  const body = init?.body;
  // A streamed body (the SDK's file uploads): piped with backpressure, so a 200 MB batch file
  // is never in memory (the platform fetch held about all of it while a slow server read it).
  const stream = body instanceof ReadableStream ? body : undefined;
  if (input instanceof Request || (body !== undefined && body !== null && typeof body !== "string" && !stream)) {
    return fetch(input, init);
  }
  const url = new URL(String(input));
  const agent = agents[url.protocol as keyof typeof agents];
  if (!agent) return fetch(input, init);
  const headers: Record<string, string> = {};
  new Headers(init?.headers).forEach((value, name) => {
    headers[name] = value;
  });
  if (typeof body === "string") headers["content-length"] = String(Buffer.byteLength(body));
  // Bodies are read raw: ask for them uncompressed (the platform fetch would decode gzip for us).
  headers["accept-encoding"] = "identity";
  const signal = init?.signal ?? undefined;
  if (signal?.aborted) throw abortError(signal.reason);
  const client = url.protocol === "https:" ? https : http;
  return new Promise<Response>((resolve, reject) => {
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      fn();
    };
    const req = client.request(url, { method: init?.method ?? "GET", headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("error", (error) => finish(() => reject(error)));
      res.on("end", () =>
        finish(() => {
          const status = res.statusCode ?? 500;
          // Redirects (a gateway moving the API) are left to the platform fetch, which follows them.
          // (Not with a streamed body, which is spent: that 3xx goes back as it is.)
          if (status >= 300 && status < 400 && status !== 304 && res.headers.location && !stream) {
            resolve(fetch(input, init));
            return;
          }
          try {
            const responseHeaders = new Headers();
            for (const [name, value] of Object.entries(res.headers)) {
              if (Array.isArray(value)) value.forEach((v) => responseHeaders.append(name, v));
              else if (value !== undefined) responseHeaders.set(name, value);
            }
            const noBody = status === 101 || status === 103 || status === 204 || status === 205 || status === 304;
            resolve(new Response(noBody ? null : Buffer.concat(chunks), { status, statusText: res.statusMessage, headers: responseHeaders }));
          } catch (error) {
            // e.g. a status outside 200-599: a protocol error, reported (and retried) like a network failure.
            reject(Object.assign(new TypeError(`fetch failed: invalid response (status ${status})`), { cause: error }));
          }
        }),
      );
    });
    const onAbort = () => {
      const error = abortError(signal?.reason);
      req.destroy(error);
      finish(() => reject(error));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    req.on("error", (error) => finish(() => reject(Object.assign(new TypeError("fetch failed"), { cause: error }))));
    if (stream) {
      // No content-length: sent chunked, as the platform fetch sends a stream.
      pipeline(Readable.fromWeb(stream as NodeReadableStream), req).catch((error: unknown) => {
        req.destroy(error as Error);
        finish(() => reject(Object.assign(new TypeError("fetch failed"), { cause: error })));
      });
    } else req.end(body ?? undefined);
  });
}) as typeof fetch;

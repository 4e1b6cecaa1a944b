import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { nodeFetch } from "../../src/llm/transport.js";

describe("nodeFetch (the SDK's transport)", () => {
  let server: Server;
  let url: string;
  let lastBody = "";
  let lastHeaders: Record<string, unknown> = {};
  let held: (() => void) | undefined;
  beforeEach(async () => {
    server = createServer((req, res) => {
      if (req.url === "/hold") {
        // Reads nothing until the test releases it: what the client sends meanwhile must wait.
        held = () => {
          let bytes = 0;
          req.on("data", (c: Buffer) => (bytes += c.length));
          req.on("end", () =>
            res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ bytes, chunked: req.headers["transfer-encoding"] })),
          );
        };
        return;
      }
      const chunks: Buffer[] = [];
      req.on("data", (c) => chunks.push(c));
      req.on("end", () => {
        lastBody = Buffer.concat(chunks).toString("utf8");
        lastHeaders = req.headers;
        if (req.url === "/slow") return void setTimeout(() => res.end("late"), 2_000);
        if (req.url === "/empty") return void res.writeHead(204).end();
        if (req.url === "/reset") return void res.writeHead(205).end();
        if (req.url === "/moved") return void res.writeHead(307, { location: "/target" }).end();
        if (req.url === "/target") return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ moved: true, body: lastBody }));
        res.writeHead(201, [
          ["content-type", "application/json"],
          ["set-cookie", "a=1"],
          ["set-cookie", "b=2"],
          ["retry-after", "3"],
        ]);
        res.end(JSON.stringify({ echo: lastBody, ünï: "çødé" }));
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it("sends method, headers and a UTF-8 body and returns a real Response", async () => {
    const body = JSON.stringify({ text: "héllo 😀" });
    const res = await nodeFetch(`${url}/x`, { method: "POST", body, headers: { "content-type": "application/json", authorization: "Bearer k" } });
    expect(res).toBeInstanceOf(Response);
    expect(res.status).toBe(201);
    expect(res.headers.get("retry-after")).toBe("3");
    expect(res.headers.get("set-cookie")).toContain("a=1");
    expect(await res.json()).toEqual({ echo: body, ünï: "çødé" });
    expect(lastBody).toBe(body);
    expect(lastHeaders).toMatchObject({ authorization: "Bearer k", "content-length": String(Buffer.byteLength(body)) });
  });

  it("streams a ReadableStream body (a file upload) with backpressure: never far ahead of the server", async () => {
    const total = 64 * 1024 * 1024;
    const piece = new Uint8Array(1024 * 1024).fill(120);
    let produced = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (produced >= total) return controller.close();
        produced += piece.length;
        controller.enqueue(piece);
      },
    });
    const response = nodeFetch(`${url}/hold`, { method: "POST", body, duplex: "half" } as RequestInit);
    while (!held) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 200));
    // Socket buffers hold a few MB; the rest waits in the file until the server reads.
    expect(produced).toBeLessThan(total / 2);
    held();
    const res = await response;
    expect(await res.json()).toEqual({ bytes: total, chunked: "chunked" });
  });

  it("handles bodiless responses", async () => {
    const res = await nodeFetch(`${url}/empty`);
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
  });

  it("rejects with an AbortError when the signal fires", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await expect(nodeFetch(`${url}/slow`, { signal: controller.signal })).rejects.toMatchObject({ name: "AbortError" });
    await expect(nodeFetch(`${url}/slow`, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: "AbortError" });
  });

  it("rejects with the network error as cause when nothing listens", async () => {
    const dead = url;
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    server = createServer();
    server.listen(0);
    const error = await nodeFetch(`${dead}/x`).catch((e) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(error.cause.code).toBe("ECONNREFUSED");
  });

  it("follows redirects, asks for identity encoding, and survives body-less statuses", async () => {
    const moved = await nodeFetch(`${url}/moved`, { method: "POST", body: '{"x":1}' });
    expect(moved.status).toBe(200);
    expect(await moved.json()).toEqual({ moved: true, body: '{"x":1}' });
    await nodeFetch(`${url}/echo`, { method: "POST", body: "{}" });
    expect(lastHeaders["accept-encoding"]).toBe("identity");
    const reset = await nodeFetch(`${url}/reset`, { method: "POST", body: "{}" });
    expect(reset.status).toBe(205);
  });
});

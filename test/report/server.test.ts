import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer } from "node:net";
import { startServer, type RunningServer } from "../../src/report/server.js";

/** Raw HTTP request (no URL normalisation, unlike fetch), so traversal attempts reach the server as sent. */
function raw(
  port: number,
  path: string,
  method = "GET",
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((ok, fail) => {
    const req = request({ host: "127.0.0.1", port, path, method, headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c) => (body += c));
      res.on("end", () => ok({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", fail);
    req.end();
  });
}

let root: string;
let site: string;
let server: RunningServer;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "colloquy-serve-"));
  site = join(root, "site");
  await mkdir(join(site, "sessions"), { recursive: true });
  await writeFile(join(site, "index.html"), "<!doctype html><title>x</title>");
  await writeFile(join(site, "app.0123456789ab.js"), "console.log(1)");
  await writeFile(join(site, "app.0123456789ab.css"), "body{}");
  await writeFile(join(site, "data.0123456789ab.json"), "{}");
  await writeFile(join(root, "secret.txt"), "do not serve");
  await symlink(join(root, "secret.txt"), join(site, "link.txt"));
  await symlink(root, join(site, "up"));
  server = await startServer(site, { port: 0 });
});

afterAll(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});

describe("startServer", () => {
  it("binds 127.0.0.1 and serves the site with types, nosniff and a strict CSP", async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const index = await raw(server.port, "/");
    expect(index.status).toBe(200);
    expect(index.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(index.headers["x-content-type-options"]).toBe("nosniff");
    expect(index.headers["content-security-policy"]).toMatch(/default-src 'self'; script-src 'self'/);
    expect(index.headers["content-security-policy"]).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect(index.headers["cache-control"]).toBe("no-cache");
    const js = await raw(server.port, "/app.0123456789ab.js?v=1");
    expect(js.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(js.headers["cache-control"]).toMatch(/immutable/);
    expect((await raw(server.port, "/app.0123456789ab.css")).headers["content-type"]).toBe("text/css; charset=utf-8");
    expect((await raw(server.port, "/data.0123456789ab.json")).headers["content-type"]).toBe("application/json; charset=utf-8");
  });

  it("answers HEAD without a body and refuses other methods with 405", async () => {
    const head = await raw(server.port, "/index.html", "HEAD");
    expect(head.status).toBe(200);
    expect(head.body).toBe("");
    for (const method of ["POST", "PUT", "DELETE", "OPTIONS"]) {
      const res = await raw(server.port, "/index.html", method);
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe("GET, HEAD");
    }
  });

  it("never serves anything outside the site folder", async () => {
    for (const path of [
      "/../secret.txt",
      "/%2e%2e/secret.txt",
      "/%2E%2E%2Fsecret.txt",
      "/sessions/..%2f..%2fsecret.txt",
      "/..%5csecret.txt",
      "/link.txt",
      "/up/secret.txt",
      `/${encodeURIComponent(join(root, "secret.txt"))}`,
      "//etc/passwd",
      "/%00index.html",
      "/%E0%A4%A",
    ]) {
      const res = await raw(server.port, path);
      expect(res.status, path).toBe(404);
      expect(res.body, path).not.toContain("do not serve");
    }
    expect((await raw(server.port, "/missing.js")).status).toBe(404);
  });

  it("refuses requests for other host names (DNS rebinding) and dotfiles", async () => {
    expect((await raw(server.port, "/", "GET", { host: "evil.example" })).status).toBe(421);
    expect((await raw(server.port, "/", "GET", { host: `evil.example:${server.port}` })).status).toBe(421);
    expect((await raw(server.port, "/", "GET", { host: `localhost:${server.port}` })).status).toBe(200);
    expect((await raw(server.port, "/", "GET", { host: `127.0.0.1:${server.port}` })).status).toBe(200);
    expect((await raw(server.port, "/", "GET", { host: `[::1]:${server.port}` })).status).toBe(200);
    await writeFile(join(site, ".env"), "OPENAI_API_KEY=sk-secret");
    expect((await raw(server.port, "/.env")).status).toBe(404);
    expect((await raw(server.port, "/%2eenv")).status).toBe(404);
  });

  it("tries the next ports when the first is taken", async () => {
    const blocker = createServer();
    await new Promise<void>((ok) => blocker.listen(0, "127.0.0.1", () => ok()));
    const taken = (blocker.address() as { port: number }).port;
    try {
      const next = await startServer(site, { port: taken, attempts: 5 });
      expect(next.port).toBeGreaterThan(taken);
      expect(next.port).toBeLessThan(taken + 5);
      await next.close();
      await expect(startServer(site, { port: taken, attempts: 1 })).rejects.toThrow(/taken.*--port/);
    } finally {
      blocker.close();
    }
  });
});

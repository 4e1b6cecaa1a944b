import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, readFile, readdir, rm, stat, utimes } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeDashboardFixture } from "../../fixtures/dashboard/generate.js";
import { runCli } from "../support/cli.js";
import { siteIsStale } from "../../src/report/build.js";
import { VIEW_DATA, type SiteIndex } from "../../src/report/types.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "colloquy-build-"));
  await writeDashboardFixture(dir);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("colloquy build", () => {
  it("writes index.html, hashed bundles and the data into <study>/site", async () => {
    const run = await runCli(["build", dir]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Dashboard built in .*site\/ \(5 sessions/);
    const files = await readdir(join(dir, "site"));
    const js = files.find((f) => /^app\.[0-9a-f]{12}\.js$/.test(f));
    const css = files.find((f) => /^app\.[0-9a-f]{12}\.css$/.test(f));
    const data = files.find((f) => /^data\.[0-9a-f]{12}\.json$/.test(f));
    expect([js, css, data].every(Boolean)).toBe(true);
    const index = await readFile(join(dir, "site", "index.html"), "utf8");
    expect(index).toContain(`src="${js}"`);
    expect(index).toContain(`href="${css}"`);
    expect(index).toContain(`content="${data}"`);
    expect(index).not.toMatch(/<script>[^<]/); // no inline script
    expect(index).not.toMatch(/https?:\/\//); // no CDN
    const siteIndex = JSON.parse(await readFile(join(dir, "site", data!), "utf8")) as SiteIndex;
    expect(siteIndex.provenance.tool).toBe("colloquy");
    for (const s of siteIndex.sessions) expect((await stat(join(dir, "site", s.chunk))).isFile()).toBe(true);
    // One data file per view that has members of its own, each named in the index; the index holds none of them.
    expect(Object.keys(siteIndex.views).sort()).toEqual(Object.keys(VIEW_DATA).sort());
    expect((await readdir(join(dir, "site", "views"))).sort()).toEqual(
      Object.values(siteIndex.views)
        .map((f) => f.slice("views/".length))
        .sort(),
    );
    for (const [view, file] of Object.entries(siteIndex.views)) {
      const members = Object.keys(JSON.parse(await readFile(join(dir, "site", file), "utf8")));
      expect(members, view).toEqual(VIEW_DATA[view as keyof typeof VIEW_DATA]);
      for (const member of members) expect(siteIndex, member).not.toHaveProperty(member);
    }
    // d3 is inside the app bundle.
    expect((await stat(join(dir, "site", js!))).size).toBeGreaterThan(60_000);
    expect(await siteIsStale(dir)).toBe(false);
  });

  it("rebuilding leaves no stale hashed files (only this build's and the one before's); --out writes elsewhere", async () => {
    await runCli(["build", dir]);
    await runCli(["build", dir]);
    const files = (await readdir(join(dir, "site"))).filter((f) => f.startsWith("data."));
    // This build's data file and views, and at most the build before's beside them (a tab open on it).
    const html = await readFile(join(dir, "site", "index.html"), "utf8");
    const data = /"(data\.[0-9a-f]{12}\.json)"/.exec(html)![1];
    expect(files).toContain(data);
    expect(files.length).toBeLessThanOrEqual(2);
    const views = Object.values((JSON.parse(await readFile(join(dir, "site", data), "utf8")) as SiteIndex).views).map((f) => f.slice("views/".length));
    const viewFiles = await readdir(join(dir, "site", "views"));
    for (const view of views) expect(viewFiles).toContain(view);
    expect(viewFiles.length).toBeLessThanOrEqual(2 * Object.keys(VIEW_DATA).length);
    const out = join(dir, "elsewhere");
    const run = await runCli(["build", dir, "--out", out]);
    expect(run.code).toBe(0);
    expect(await readdir(out)).toContain("index.html");
  });

  it("the site is stale when study data is newer", async () => {
    const later = new Date(Date.now() + 60_000);
    await utimes(join(dir, "sessions", "c1.json"), later, later);
    expect(await siteIsStale(dir)).toBe(true);
  });

  it("a missing study is a clear error", async () => {
    const run = await runCli(["build", join(dir, "nope")]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/no such study folder/);
  });
});

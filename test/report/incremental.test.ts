import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cp, mkdtemp, readdir, readFile, rm, stat, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeDashboardFixture } from "../../fixtures/dashboard/generate.js";
import { loadStudyData } from "../../src/report/load.js";
import { assembleReport } from "../../src/report/bundle.js";
import { readSiteBundle, writeSite } from "../../src/report/site.js";
import { buildSite } from "../../src/report/build.js";
import { openStudy, silentEffects } from "../../src/stages/context.js";
import { runBuild } from "../../src/stages/build.js";
import { appendCodes, readCodes, replaceCodes } from "../../src/coding/store.js";
import { loadSessions, saveSession } from "../../src/study/study.js";
import type { ReportBundle, SiteIndex } from "../../src/report/types.js";
import { memoPath } from "../../src/study/memo.js";
import { existsSync } from "node:fs";
import { removeSessions } from "../../src/stages/remove-sessions.js";

/**
 * The build streams (one codebook's code files at a time, each chunk written as it is made) and
 * rewrites only the chunk files whose content changed. Both must give the site a from-scratch,
 * all-in-memory build gives: same data bundle, same chunk files byte for byte, nothing left over.
 */

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "colloquy-incremental-"));
  await writeDashboardFixture(dir);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The data of a built site (index and views), without its creation time (the one field meant to differ). */
async function bundleOf(site: string): Promise<ReportBundle> {
  const bundle = await readSiteBundle(site);
  delete (bundle.provenance as { createdAt?: string }).createdAt;
  return bundle;
}

/** The files the site's index.html points to (its app, its data file, and the views' and sessions' files that names). */
async function inUse(site: string): Promise<Set<string>> {
  const html = await readFile(join(site, "index.html"), "utf8");
  const names = new Set([...html.matchAll(/"(app\.[0-9a-f]{12}\.(?:js|css)|data\.[0-9a-f]{12}\.json)"/g)].map((m) => m[1]));
  const data = [...names].find((n) => n.startsWith("data."))!;
  const index = JSON.parse(await readFile(join(site, data), "utf8")) as SiteIndex;
  for (const file of Object.values(index.views)) names.add(file);
  for (const session of index.sessions) names.add(session.chunk);
  return names;
}

/** Every file of the site's current build (relative name -> content), index.html and data file aside; the build before's files stay beside it. */
async function filesOf(site: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const current = await inUse(site);
  for (const entry of await readdir(site, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const rel = join(entry.parentPath, entry.name).slice(site.length + 1);
    if (rel === "index.html" || rel.startsWith("data.") || !current.has(rel)) continue;
    out.set(rel, await readFile(join(site, rel), "utf8"));
  }
  return out;
}

async function expectSameSite(a: string, b: string): Promise<void> {
  expect(await bundleOf(a)).toEqual(await bundleOf(b));
  const [fa, fb] = [await filesOf(a), await filesOf(b)];
  expect([...fa.keys()].sort()).toEqual([...fb.keys()].sort());
  for (const [name, text] of fa) expect(text, name).toBe(fb.get(name));
}

/** The study's site equals one built from scratch (a copy at `fresh`, of the same folder name, with no .cache and no site). */
async function expectSameAsFromScratch(study: string, fresh: string): Promise<void> {
  await cp(study, fresh, { recursive: true });
  await rm(join(fresh, ".cache"), { recursive: true, force: true });
  await rm(join(fresh, "site"), { recursive: true, force: true });
  await buildSite(fresh);
  await expectSameSite(join(study, "site"), join(fresh, "site"));
}

describe("a rebuild and a browser tab open on the build before", () => {
  it("keeps the files of the build before (its views load as they are shown), and removes those of older builds", async () => {
    const study = join(await mkdtemp(join(tmpdir(), "colloquy-generations-")), "study");
    await cp(dir, study, { recursive: true });
    await rm(join(study, "site"), { recursive: true, force: true });
    const site = join(study, "site");
    const generation = async (title: string) => {
      const config = JSON.parse(await readFile(join(study, "colloquy.json"), "utf8"));
      await writeFile(join(study, "colloquy.json"), JSON.stringify({ ...config, title }));
      await buildSite(study);
      return inUse(site);
    };
    const first = await generation("first");
    const second = await generation("second");
    // The study's title is in the index and in views: each build has files of its own.
    const firstOnly = [...first].filter((f) => !second.has(f));
    expect(firstOnly.length).toBeGreaterThan(0);
    for (const file of first) expect(existsSync(join(site, file)), file).toBe(true);
    const third = await generation("third");
    for (const file of second) expect(existsSync(join(site, file)), file).toBe(true);
    for (const file of firstOnly.filter((f) => !third.has(f))) expect(existsSync(join(site, file)), file).toBe(false);
    await rm(join(study, ".."), { recursive: true, force: true });
  });

  it("keeps nothing of a session that left the study (a participant withdrew): the build before goes at once", async () => {
    const study = join(await mkdtemp(join(tmpdir(), "colloquy-withdrawn-")), "study");
    await cp(dir, study, { recursive: true });
    await rm(join(study, "site"), { recursive: true, force: true });
    const site = join(study, "site");
    await buildSite(study);
    const before = await inUse(site);
    const [gone] = (await loadSessions(study)).map((s) => s.id);
    await removeSessions(study, [gone]);
    await buildSite(study);
    const now = await inUse(site);
    const left = await readdir(join(site, "sessions"));
    expect(left.filter((name) => name.startsWith(`${gone}.`))).toEqual([]);
    // Only the new build's files stay: the data file and views of the build before named the session.
    for (const file of [...before].filter((f) => !now.has(f))) expect(existsSync(join(site, file)), file).toBe(false);
    expect((await readdir(site)).filter((f) => f.startsWith("data."))).toHaveLength(1);
    await rm(join(study, ".."), { recursive: true, force: true });
  });
});

describe("the streaming, incremental build", () => {
  it("writes the bundle and chunks assembleReport makes from everything in memory", async () => {
    const result = await buildSite(dir, { out: join(dir, "streamed") });
    const { bundle, chunks } = assembleReport(await loadStudyData(dir));
    const built = await bundleOf(join(dir, "streamed"));
    delete (bundle.provenance as { createdAt?: string }).createdAt;
    // Chunk file names carry their content hash; the in-memory bundle names the plain file.
    expect(built.sessions.map((s) => s.chunk)).toEqual(
      built.sessions.map((s) => expect.stringMatching(new RegExp(`^sessions/${s.id}\\.[0-9a-f]{12}\\.json$`))),
    );
    expect({ ...built, sessions: built.sessions.map((s) => ({ ...s, chunk: "" })) }).toEqual({
      ...bundle,
      sessions: bundle.sessions.map((s) => ({ ...s, chunk: "" })),
    });
    for (const chunk of chunks) {
      const file = built.sessions.find((s) => s.id === chunk.id)!.chunk;
      expect(await readFile(join(dir, "streamed", file), "utf8")).toBe(JSON.stringify(chunk));
    }
    expect(result.files.chunks).toBe(chunks.length);
    // Byte for byte, where the build splices entries it kept as text (participation, concepts, topics):
    // the bundle made in memory, with the chunk names the build gave, written whole.
    const written = await readFile(join(dir, "streamed", result.files.data), "utf8");
    const whole = await writeSite(join(dir, "whole"), { ...bundle, sessions: built.sessions }, []);
    const wholeText = await readFile(join(dir, "whole", whole.files.data), "utf8");
    // The creation time of the bundle itself (assembleReport's was taken out above).
    const noTime = (text: string) => text.replace(/^(\{"schemaVersion":2,"provenance":\{"tool":"colloquy","version":"[^"]*",)"createdAt":"[^"]*",/, "$1");
    expect(noTime(written)).toBe(noTime(wholeText));
    // Each view's file, written as its data was made, holds the bytes of its members written whole (its name is their hash).
    expect(result.files.views).toEqual(whole.files.views);
    for (const file of Object.values(result.files.views))
      expect(await readFile(join(dir, "streamed", file), "utf8"), file).toBe(await readFile(join(dir, "whole", file), "utf8"));
  });

  it("the build run alone (code files read and let go) and in the pipeline (the context's records) make the same site", async () => {
    const context = await openStudy(dir);
    await runBuild(context, { out: join(dir, "shared") }, silentEffects);
    await runBuild(await openStudy(dir), { out: join(dir, "alone"), alone: true }, silentEffects);
    await expectSameSite(join(dir, "shared"), join(dir, "alone"));
  });

  it("after a session is added and one is changed, a rebuild equals a from-scratch build and rewrites only the changed chunks", async () => {
    const site = join(dir, "site");
    await buildSite(dir);
    const before = new Map<string, number>();
    for (const name of await readdir(join(site, "sessions"))) before.set(name, (await stat(join(site, "sessions", name))).mtimeMs);
    await new Promise((r) => setTimeout(r, 20));

    // A new session: a copy of c1 under a new id, with copies of c1's codes from every coder.
    const sessions = await loadSessions(dir);
    const c1 = sessions.find((s) => s.id === "c1")!;
    await saveSession(dir, { ...c1, id: "c9", title: "Garden planning c9" });
    for (const [codebook, coder] of [
      ["bales-ipa", "rules"],
      ["bales-ipa", "human:alice"],
      ["pragmatic-style", "rules"],
    ]) {
      const copies = (await readCodes(dir, codebook, coder)).filter((r) => r.session === "c1").map((r) => ({ ...r, session: "c9" }));
      await appendCodes(dir, copies);
    }
    // A changed session: one more word in d2's last turn (its codes no longer describe that turn).
    const d2 = sessions.find((s) => s.id === "d2")!;
    const turns = d2.turns.map((t, i) => (i === d2.turns.length - 1 ? { ...t, text: `${t.text} indeed` } : t));
    await saveSession(dir, { ...d2, turns });

    await buildSite(dir);
    await buildSite(dir, { out: join(dir, "scratch") });
    await expectSameSite(site, join(dir, "scratch"));

    // The files of this build (d2's chunk of the build before stays beside them, for a tab still open on it).
    const current = await inUse(site);
    const after = (await readdir(join(site, "sessions"))).filter((n) => current.has(`sessions/${n}`));
    expect(after.filter((n) => n.startsWith("c9."))).toHaveLength(1);
    for (const name of after) {
      const id = name.split(".")[0];
      const mtime = (await stat(join(site, "sessions", name))).mtimeMs;
      // Unchanged sessions keep their file as it was; the new and the changed one are written.
      if (id === "c9" || id === "d2") expect(before.has(name)).toBe(false);
      else expect(mtime).toBe(before.get(name));
    }
  });

  it("a deleted chunk file is written again and a stray one with our naming is removed", async () => {
    const site = join(dir, "site");
    const [victim] = (await readdir(join(site, "sessions"))).filter((n) => n.startsWith("c2."));
    const before = await readFile(join(site, "sessions", victim), "utf8");
    await rm(join(site, "sessions", victim));
    await writeFile(join(site, "sessions", "c2.000000000000.json"), "{}");
    // Its parts are kept in the memo: its badges come from the code files, read again for it.
    await buildSite(dir);
    const names = await readdir(join(site, "sessions"));
    expect(names).toContain(victim);
    expect(await readFile(join(site, "sessions", victim), "utf8")).toBe(before);
    expect(names).not.toContain("c2.000000000000.json");
  });

  it("a chunk or app file cut short or emptied (a power cut after a write without sync) is written again whole; one there whole is left as it is", async () => {
    const site = join(dir, "site");
    await buildSite(dir);
    const chunks = (await readdir(join(site, "sessions"))).filter((n) => n.startsWith("c1.") || n.startsWith("d1.")).map((n) => `sessions/${n}`);
    expect(chunks).toHaveLength(2);
    const app = (await readdir(site)).filter((n) => n.startsWith("app."));
    expect(app).toHaveLength(2);
    const whole = new Map<string, string>();
    for (const name of [...chunks, ...app]) whole.set(name, await readFile(join(site, name), "utf8"));
    const [js, css] = [app.find((n) => n.endsWith(".js"))!, app.find((n) => n.endsWith(".css"))!];
    const cssInode = (await stat(join(site, css))).ino;
    await truncate(join(site, chunks[0]), 10);
    await truncate(join(site, chunks[1]), 0);
    await truncate(join(site, js), 100);
    await buildSite(dir);
    for (const [name, text] of whole) expect(await readFile(join(site, name), "utf8"), name).toBe(text);
    expect((await stat(join(site, css))).ino).toBe(cssInode);
  });

  it("removes the temp files a crashed build left, not those of a build still running", async () => {
    const site = join(dir, "site");
    await buildSite(dir);
    const [chunk] = (await readdir(join(site, "sessions"))).filter((n) => n.startsWith("c1."));
    // No process has this id (above any pid_max); this test's process is running.
    const crashed = 999_999_999;
    const leftovers = [`.data.${crashed}.0123abcd.tmp`, `.index.html.${crashed}.0123abcd.tmp`, `sessions/.${chunk}.${crashed}.0123abcd.tmp`];
    const live = `.data.${process.pid}.0123abcd.tmp`;
    for (const name of [...leftovers, live]) await writeFile(join(site, name), '{"half": ');
    await buildSite(dir);
    const names = [...(await readdir(site)), ...(await readdir(join(site, "sessions"))).map((n) => `sessions/${n}`)];
    for (const name of leftovers) expect(names).not.toContain(name);
    expect(names).toContain(live);
    await rm(join(site, live));
  });

  it("built alone, a session whose codes were appended gives the site a from-scratch build gives", async () => {
    const [here, there] = [await mkdtemp(join(tmpdir(), "colloquy-digests-")), await mkdtemp(join(tmpdir(), "colloquy-digests-"))];
    const [study, fresh] = [join(here, "study"), join(there, "study")];
    await writeDashboardFixture(study);
    await runBuild(await openStudy(study), { alone: true }, silentEffects);
    // A new session (d1's turns under a new id) coded by appending, as `colloquy code` does; one of its codes new to the study.
    const d1 = (await loadSessions(study)).find((s) => s.id === "d1")!;
    await saveSession(study, { ...d1, id: "d8", title: "Garden planning d8" });
    for (const [codebook, coder] of [
      ["bales-ipa", "rules"],
      ["bales-ipa", "human:alice"],
      ["pragmatic-style", "rules"],
    ]) {
      const own = (await readCodes(study, codebook, coder)).filter((r) => r.session === "d1");
      await appendCodes(
        study,
        own.map((r, i) => ({ ...r, session: "d8", codes: r.codes && i === 0 ? ["a-code-of-its-own"] : r.codes })),
      );
    }
    await runBuild(await openStudy(study), { alone: true }, silentEffects);
    await expectSameAsFromScratch(study, fresh);
    const bundle = await bundleOf(join(study, "site"));
    expect(bundle.compare.flatMap((c) => c.codes.map((k) => k.id))).toContain("a-code-of-its-own");
    await rm(here, { recursive: true, force: true });
    await rm(there, { recursive: true, force: true });
  });

  it("reuses the per-session parts of .cache/memo: after a session is added and one session's codes change, the site equals one built from scratch with no cache", async () => {
    // Two folders of the same name (the study's name is in the bundle).
    const [here, there] = [await mkdtemp(join(tmpdir(), "colloquy-memo-")), await mkdtemp(join(tmpdir(), "colloquy-memo-"))];
    const [study, fresh] = [join(here, "study"), join(there, "study")];
    await writeDashboardFixture(study);
    await buildSite(study);
    for (const name of ["report-sessions", "report-chunks", ["report-codebook", "bales-ipa"], ["report-codebook", "pragmatic-style"]] as const) {
      expect(existsSync(memoPath(study, name))).toBe(true);
    }

    // A new session (a copy of d1 under a new id, with d1's codes), and d2 recoded: every Bales
    // code of the rules coder for d2 becomes "asks-opinion", each pragmatic-style rating one point lower.
    const d1 = (await loadSessions(study)).find((s) => s.id === "d1")!;
    await saveSession(study, { ...d1, id: "d7", title: "Garden planning d7" });
    for (const [codebook, coder] of [
      ["bales-ipa", "rules"],
      ["pragmatic-style", "rules"],
    ]) {
      const records = await readCodes(study, codebook, coder);
      const changed = records.map((r) =>
        r.session !== "d2"
          ? r
          : {
              ...r,
              codes: r.codes?.map(() => "asks-opinion"),
              scores: r.scores && Object.fromEntries(Object.entries(r.scores).map(([k, v]) => [k, Math.max(1, v - 1)])),
            },
      );
      await replaceCodes(study, codebook, coder, [...changed, ...records.filter((r) => r.session === "d1").map((r) => ({ ...r, session: "d7" }))]);
    }
    await buildSite(study);

    await expectSameAsFromScratch(study, fresh);
    // The recoding reached the dashboard (so the memo did not hand back d2's old parts).
    const bundle = await bundleOf(join(study, "site"));
    const rules = bundle.distributions.find((d) => d.codebook === "bales-ipa" && d.coder === "rules")!;
    const fromScratch = assembleReport(await loadStudyData(study)).bundle.distributions.find((d) => d.codebook === "bales-ipa" && d.coder === "rules")!;
    expect(rules).toEqual(fromScratch);
    expect(bundle.sessions.map((s) => s.id)).toContain("d7");
    await rm(here, { recursive: true, force: true });
    await rm(there, { recursive: true, force: true });
  });
});

import { statSync } from "node:fs";
import { mkdir, readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../util/fs.js";
import { sha256 } from "../util/hash.js";
import { OWNER_TAG, taggedOwnerRunning } from "../util/process.js";
import { openJsonObject, type JsonObjectWriter } from "./json-file.js";
import { VIEW_DATA, type ReportBundle, type SessionChunk, type SiteIndex, type ViewMember } from "./types.js";
import { webAssets } from "./webbundle.js";

/** What a site writer wrote (`openSite(…).finish`, or `writeSite`). */
export interface SiteResult {
  dir: string;
  /** `data`: the index the page loads first; `views`: each view's data file, by view id. */
  files: { index: string; js: string; css: string; data: string; views: Record<string, string>; chunks: number };
  /** Bytes of the app (JS + CSS), of the index, of the views' files (`views`: the largest of them alone) and of the chunks. */
  bytes: { app: number; data: number; views: number; largestView: number; chunks: number };
}

const hashOf = (text: string) => sha256(text).slice(0, 12);

/**
 * Content Security Policy of the site (also sent by `colloquy serve`): only same-origin files,
 * no inline scripts; images may be data:/blob: URLs (PNG export draws the SVG through one).
 */
export const SITE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'";

/** The header form adds what a <meta> policy cannot carry. */
export const SITE_CSP_HEADER = `${SITE_CSP}; frame-ancestors 'none'`;

function indexHtml(title: string, js: string, css: string, data: string): string {
  const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${SITE_CSP}">
<meta name="colloquy-data" content="${esc(data)}">
<link rel="icon" href="data:,">
<title>${esc(title)}</title>
<link rel="stylesheet" href="${esc(css)}">
<script defer src="${esc(js)}"></script>
</head>
<body>
<noscript>This dashboard needs JavaScript. Serve the folder with \`colloquy serve\` or any static file server.</noscript>
<div id="app"></div>
</body>
</html>
`;
}

/**
 * A temp file this writer (or writeFileAtomic for it) makes, `.<name>.<owner>.<hex>.tmp`, left by a
 * build that crashed: a view's can be several MB. A temp of a process that may still run (on this
 * machine, or on another sharing the folder) may be a build writing now, and is left alone.
 */
const TEMP_NAME = new RegExp(String.raw`^\.(.+)\.(${OWNER_TAG})\.[0-9a-f]{8}\.tmp$`);
const leftover = (name: string, ours: RegExp) => {
  const match = TEMP_NAME.exec(name);
  return match !== null && ours.test(match[1]) && !taggedOwnerRunning(match[2]);
};

/**
 * The build the site's index.html points to now: the files a browser tab open on it loads as its
 * views and sessions are asked for, and the sessions it shows. Read before a build replaces it.
 */
async function previousBuild(dir: string): Promise<{ files: Set<string>; sessions: Set<string> }> {
  const files = new Set<string>();
  const sessions = new Set<string>();
  let html: string;
  try {
    html = await readFile(join(dir, "index.html"), "utf8");
  } catch {
    return { files, sessions };
  }
  for (const match of html.matchAll(/"(app\.[0-9a-f]{12}\.(?:js|css)|data\.[0-9a-f]{12}\.json)"/g)) files.add(match[1]);
  const data = [...files].find((name) => name.startsWith("data."));
  try {
    const index = JSON.parse(await readFile(join(dir, data!), "utf8")) as Partial<SiteIndex>;
    for (const file of Object.values(index.views ?? {})) files.add(file);
    for (const session of index.sessions ?? []) {
      sessions.add(session.id);
      if (session.chunk) files.add(session.chunk);
    }
  } catch {
    // No readable index: nothing more to keep than what index.html names.
  }
  return { files, sessions };
}

/** Remove hashed files of earlier builds and temp files of crashed ones (only names this writer makes), keeping `keep`. */
async function removeStale(dir: string, keep: Set<string>): Promise<void> {
  const ours = /^(app\.[0-9a-f]{12}\.(js|css)|data\.[0-9a-f]{12}\.json)$/;
  const ourTemps = /^(data|index\.html|app\.[0-9a-f]{12}\.(js|css))$/;
  for (const name of await readdir(dir)) {
    if ((ours.test(name) && !keep.has(name)) || leftover(name, ourTemps)) await rm(join(dir, name), { force: true });
  }
  const hashed = /\.[0-9a-f]{12}\.json$/;
  const views = /^[a-z]+$/;
  for (const [folder, temps] of [
    ["sessions", hashed],
    ["views", views],
  ] as const) {
    for (const name of await readdir(join(dir, folder))) {
      if ((hashed.test(name) && !keep.has(`${folder}/${name}`)) || leftover(name, temps)) await rm(join(dir, folder, name), { force: true });
    }
  }
}

/**
 * Whether a chunk file from an earlier build can be kept: its name has the hash of its text, and it
 * holds as many bytes (a file written without sync can be empty or cut short after a power cut).
 */
function whole(path: string, bytes: number): boolean {
  try {
    // In place, not through libuv's thread pool: 1,000 kept chunks took 30-40 ms stamped sixteen at a time, 6 ms so.
    return statSync(path).size === bytes;
  } catch {
    return false;
  }
}

/** Writes a site a piece at a time: the session chunks and the views' data as they are shaped, then the index. */
export interface SiteWriter {
  /** Write one session's chunk now (the caller can let it go); returns its file, relative to the site, and its size. */
  chunk(chunk: SessionChunk): Promise<{ file: string; bytes: number }>;
  /**
   * Keep a session's chunk file of an earlier build (`file` as `chunk` returned it) when it is
   * there whole (`bytes` long); false when it is not, and the caller must write the chunk.
   */
  keep(id: string, file: string, bytes: number): Promise<boolean>;
  /**
   * Start the data file of view `id` (its VIEW_DATA members, in that order); the view is the
   * site's once the writer is closed.
   */
  view(id: keyof typeof VIEW_DATA): Promise<JsonObjectWriter>;
  /** Write the index (sessions pointing at their chunks, views at their files), the app and index.html; remove stale files. */
  finish(index: Omit<SiteIndex, "views">): Promise<SiteResult>;
}

/**
 * Write the static site: index.html, app.<hash>.js/css, data.<hash>.json (the index), one
 * views/<view>.<hash>.json per view and one hashed chunk per session. Content hashes in names
 * let any static server cache forever; index.html is written last so a reader never sees an
 * index pointing at files that are not there yet. A chunk whose file already holds the same
 * content (same hash in its name, and as many bytes) is not written again. The files of the build
 * before stay (a tab open on it loads its views as they are shown); older ones are removed.
 */
export async function openSite(dir: string): Promise<SiteWriter> {
  await mkdir(join(dir, "sessions"), { recursive: true });
  await mkdir(join(dir, "views"), { recursive: true });
  const existing = new Set(await readdir(join(dir, "sessions")));
  // The previous build's files stay until the next build: a tab still open on it asks for them (404 otherwise).
  const previous = await previousBuild(dir);
  const keep = new Set<string>();
  const chunkNames = new Map<string, string>();
  const views: Record<string, string> = {};
  let chunkBytes = 0;
  let viewBytes = 0;
  let largestView = 0;
  return {
    async chunk(chunk) {
      const text = JSON.stringify(chunk);
      const file = `${chunk.id}.${hashOf(text)}.json`;
      const name = `sessions/${file}`;
      chunkNames.set(chunk.id, name);
      keep.add(name);
      const bytes = Buffer.byteLength(text);
      chunkBytes += bytes;
      if (!existing.has(file) || !whole(join(dir, name), bytes)) await writeFileAtomic(join(dir, name), text);
      return { file: name, bytes };
    },
    async keep(id, name, bytes) {
      const file = name.slice("sessions/".length);
      if (!name.startsWith(`sessions/${id}.`) || !existing.has(file) || !whole(join(dir, name), bytes)) return false;
      chunkNames.set(id, name);
      keep.add(name);
      chunkBytes += bytes;
      return true;
    },
    async view(id) {
      const writer = await openJsonObject(join(dir, "views"), id);
      return {
        ...writer,
        async close() {
          const written = await writer.close();
          views[id] = `views/${written.name}`;
          keep.add(views[id]);
          viewBytes += written.bytes;
          largestView = Math.max(largestView, written.bytes);
          return written;
        },
      };
    },
    async finish(index) {
      const assets = await webAssets();
      const data = await openJsonObject(dir, "data");
      for (const [key, value] of Object.entries(index)) {
        await data.member(key, key === "sessions" ? index.sessions.map((s) => ({ ...s, chunk: chunkNames.get(s.id) ?? s.chunk })) : value);
      }
      // In VIEW_DATA order, whatever order the build made them in.
      const ordered = Object.fromEntries(Object.keys(VIEW_DATA).flatMap((id) => (views[id] === undefined ? [] : [[id, views[id]]])));
      await data.member("views", ordered);
      const { name: dataName, bytes: dataBytes } = await data.close();
      keep.add(dataName);
      const js = `app.${hashOf(assets.js)}.js`;
      const css = `app.${hashOf(assets.css)}.css`;
      for (const [name, text] of [
        [js, assets.js],
        [css, assets.css],
      ] as const) {
        keep.add(name);
        // Named by their hash: one there whole from an earlier build is the same file.
        if (!whole(join(dir, name), Buffer.byteLength(text))) await writeFileAtomic(join(dir, name), text);
      }
      const title = `${index.study.title ?? index.study.name} · Colloquy`;
      await writeFileAtomic(join(dir, "index.html"), indexHtml(title, js, css, dataName));
      // Unless a session left the study (a participant withdrew): then nothing of it may stay in the
      // site, and the previous build goes at once (a tab open on it must reload).
      const ids = new Set(index.sessions.map((s) => s.id));
      const sessionLeft = [...previous.sessions].some((id) => !ids.has(id));
      await removeStale(dir, sessionLeft ? keep : new Set([...keep, ...previous.files]));
      return {
        dir,
        files: { index: "index.html", js, css, data: dataName, views: ordered, chunks: chunkNames.size },
        bytes: { app: Buffer.byteLength(assets.js) + Buffer.byteLength(assets.css), data: dataBytes, views: viewBytes, largestView, chunks: chunkBytes },
      };
    },
  };
}

const isViewMember = (key: string): key is ViewMember => Object.values(VIEW_DATA).some((members) => (members as readonly string[]).includes(key));

/** Write the whole site from a bundle and its chunks held in memory: each view's members to its file, the rest to the index. */
export async function writeSite(dir: string, bundle: ReportBundle, chunks: SessionChunk[]): Promise<SiteResult> {
  const site = await openSite(dir);
  for (const chunk of chunks) await site.chunk(chunk);
  for (const [id, members] of Object.entries(VIEW_DATA) as [keyof typeof VIEW_DATA, readonly ViewMember[]][]) {
    const view = await site.view(id);
    for (const member of members) await view.member(member, bundle[member]);
    await view.close();
  }
  const index = Object.fromEntries(Object.entries(bundle).filter(([key]) => !isViewMember(key)));
  return site.finish(index as Omit<SiteIndex, "views">);
}

/** A built site's data put together again (the index and every view's file, `views` aside): what the page has once every view was shown. */
export async function readSiteBundle(dir: string): Promise<ReportBundle> {
  const html = await readFile(join(dir, "index.html"), "utf8");
  const data = /<meta name="colloquy-data" content="([^"]+)">/.exec(html)?.[1];
  if (!data) throw new Error(`${join(dir, "index.html")}: no colloquy-data meta tag`);
  const { views, ...index } = JSON.parse(await readFile(join(dir, data), "utf8")) as SiteIndex;
  const bundle: Record<string, unknown> = { ...index };
  for (const file of Object.values(views)) Object.assign(bundle, JSON.parse(await readFile(join(dir, file), "utf8")));
  return bundle as unknown as ReportBundle;
}

import { createHash, randomBytes } from "node:crypto";
import { statSync } from "node:fs";
import { mkdir, open, readdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { writeChunks, writeFileAtomic } from "../util/fs.js";
import { sha256 } from "../util/hash.js";
import type { ReportBundle, SessionChunk } from "./types.js";
import { webAssets } from "./webbundle.js";

/** What a site writer wrote (`openSite(…).finish`, or `writeSite`). */
export interface SiteResult {
  dir: string;
  files: { index: string; js: string; css: string; data: string; chunks: number };
  /** Bytes of the app (JS + CSS) and of the data bundle (main JSON + chunks). */
  bytes: { app: number; data: number; chunks: number };
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

/** Whether a process with this id runs now (one of another user counts: it cannot be signalled, but exists). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * A temp file this writer (or writeFileAtomic for it) makes, `.<name>.<pid>.<hex>.tmp`, left by a
 * build that crashed: the data file's is as large as the bundle (~14 MB at 100,000 turns). A temp
 * of a process still running may be a build writing now, and is left alone.
 */
const leftover = (name: string, ours: RegExp) => {
  const match = /^\.(.+)\.(\d+)\.[0-9a-f]{8}\.tmp$/.exec(name);
  return match !== null && ours.test(match[1]) && !running(Number(match[2]));
};

/** Remove hashed files of earlier builds and temp files of crashed ones (only names this writer makes), keeping `keep`. */
async function removeStale(dir: string, keep: Set<string>): Promise<void> {
  const ours = /^(app\.[0-9a-f]{12}\.(js|css)|data\.[0-9a-f]{12}\.json)$/;
  const ourTemps = /^(data|index\.html|app\.[0-9a-f]{12}\.(js|css))$/;
  for (const name of await readdir(dir)) {
    if ((ours.test(name) && !keep.has(name)) || leftover(name, ourTemps)) await rm(join(dir, name), { force: true });
  }
  const sessions = join(dir, "sessions");
  const chunk = /\.[0-9a-f]{12}\.json$/;
  for (const name of await readdir(sessions)) {
    if ((chunk.test(name) && !keep.has(`sessions/${name}`)) || leftover(name, chunk)) await rm(join(sessions, name), { force: true });
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

/**
 * Write the bundle as data.<hash>.json, one top-level member at a time (the same bytes as one
 * JSON.stringify of it, without ever holding the whole text: at 100,000 turns it is ~14 MB), to
 * a temp file renamed once its hash, and so its name, is known.
 */
async function writeDataFile(dir: string, bundle: ReportBundle): Promise<{ name: string; bytes: number }> {
  const temp = join(dir, `.data.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  const hash = createHash("sha256");
  let bytes = 0;
  const handle = await open(temp, "w");
  try {
    const put = async (chunks: readonly Uint8Array[]) => {
      for (const chunk of chunks) {
        hash.update(chunk);
        bytes += chunk.length;
      }
      await writeChunks(handle, chunks);
    };
    let first = true;
    for (const [key, value] of Object.entries(bundle)) {
      const member = JSON.stringify(value);
      // JSON.stringify leaves out members whose value is undefined: so does this.
      if (member === undefined) continue;
      await put([Buffer.from(`${first ? "{" : ","}${JSON.stringify(key)}:${member}`)]);
      first = false;
    }
    await put([Buffer.from(first ? "{}" : "}")]);
  } catch (error) {
    await handle.close();
    await rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  const name = `data.${hash.digest("hex").slice(0, 12)}.json`;
  await rename(temp, join(dir, name));
  return { name, bytes };
}

/** Writes a site a piece at a time: the session chunks as they are shaped, then the bundle. */
export interface SiteWriter {
  /** Write one session's chunk now (the caller can let it go); returns its file, relative to the site, and its size. */
  chunk(chunk: SessionChunk): Promise<{ file: string; bytes: number }>;
  /**
   * Keep a session's chunk file of an earlier build (`file` as `chunk` returned it) when it is
   * there whole (`bytes` long); false when it is not, and the caller must write the chunk.
   */
  keep(id: string, file: string, bytes: number): Promise<boolean>;
  /** Write the data bundle (sessions pointing at their chunks), the app and index.html; remove stale files. */
  finish(bundle: ReportBundle): Promise<SiteResult>;
}

/**
 * Write the static site: index.html, app.<hash>.js/css, data.<hash>.json and one hashed chunk
 * per session. Content hashes in names let any static server cache forever; index.html is
 * written last so a reader never sees an index pointing at files that are not there yet. A chunk
 * whose file already holds the same content (same hash in its name, and as many bytes) is not
 * written again.
 */
export async function openSite(dir: string): Promise<SiteWriter> {
  await mkdir(join(dir, "sessions"), { recursive: true });
  const existing = new Set(await readdir(join(dir, "sessions")));
  const keep = new Set<string>();
  const chunkNames = new Map<string, string>();
  let chunkBytes = 0;
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
    async finish(bundle) {
      const assets = await webAssets();
      const finalBundle: ReportBundle = {
        ...bundle,
        sessions: bundle.sessions.map((s) => ({ ...s, chunk: chunkNames.get(s.id) ?? s.chunk })),
      };
      const { name: data, bytes: dataBytes } = await writeDataFile(dir, finalBundle);
      keep.add(data);
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
      const title = `${bundle.study.title ?? bundle.study.name} · Colloquy`;
      await writeFileAtomic(join(dir, "index.html"), indexHtml(title, js, css, data));
      await removeStale(dir, keep);
      return {
        dir,
        files: { index: "index.html", js, css, data, chunks: chunkNames.size },
        bytes: { app: Buffer.byteLength(assets.js) + Buffer.byteLength(assets.css), data: dataBytes, chunks: chunkBytes },
      };
    },
  };
}

/** Write the whole site from a bundle and its chunks held in memory. */
export async function writeSite(dir: string, bundle: ReportBundle, chunks: SessionChunk[]): Promise<SiteResult> {
  const site = await openSite(dir);
  for (const chunk of chunks) await site.chunk(chunk);
  return site.finish(bundle);
}

import { VIEW_DATA, type CodebookInfo, type ReportBundle, type SessionChunk, type SiteIndex } from "../../src/report/types.js";
import { codeColour, conditionColour, speakerStyle, type SeriesStyle } from "./palette.js";
import { el, select } from "./dom.js";

/** What every view gets: the bundle, colour maps, and the on-demand loaders of views' data and sessions. */
export interface ViewContext {
  /**
   * The index's members, and each view's (VIEW_DATA) once `loadView` fetched its file: a view
   * reads its own members, filled before it renders (web/main.ts).
   */
  bundle: ReportBundle;
  /** Fetch view `id`'s data file (once) into `bundle`; resolves at once for a view without one. */
  loadView: (id: string) => Promise<void>;
  speakerColour: (key: string) => string;
  /** Colour plus, past the eighth speaker, a dash pattern and marker shape (charts with many speakers). */
  speakerStyle: (key: string) => SeriesStyle;
  conditionColour: (condition: string) => string;
  codeColour: (codebook: string) => (code: string) => string;
  codebook: (id: string) => CodebookInfo | undefined;
  loadChunk: (sessionId: string) => Promise<SessionChunk>;
  /** Cached chunk if already loaded (for synchronous hover text). */
  chunkIfLoaded: (sessionId: string) => SessionChunk | undefined;
  /** Remembered selections (coder, codebook, session…) shared across views. */
  prefs: Map<string, string>;
}

/** Fetch a file of the site as JSON, or throw naming it. */
async function fetchJson<T>(file: string, base: URL): Promise<T> {
  const response = await fetch(new URL(file, base));
  if (!response.ok) throw new Error(`${file}: HTTP ${response.status}`);
  return (await response.json()) as T;
}

export function createContext(index: SiteIndex, base: URL): ViewContext {
  const { views, ...shared } = index;
  // Until its view is loaded, a view's members are missing: only that view reads them.
  const bundle = shared as ReportBundle;
  const loaded = new Map<string, Promise<void>>();
  const chunks = new Map<string, SessionChunk>();
  const pending = new Map<string, Promise<SessionChunk>>();
  const colours = new Map<string, (code: string) => string>();
  const codebooks = new Map(bundle.codebooks.map((c) => [c.id, c]));
  // First summary per id, as a find() would return; indexed once instead of a scan per chunk load.
  const summaries = new Map<string, ReportBundle["sessions"][number]>();
  for (const s of bundle.sessions) if (!summaries.has(s.id)) summaries.set(s.id, s);
  const style = speakerStyle(bundle);
  return {
    bundle,
    loadView: (id) => {
      let p = loaded.get(id);
      if (!p) {
        const file = id in VIEW_DATA ? views[id] : undefined;
        p = file === undefined ? Promise.resolve() : fetchJson<Partial<ReportBundle>>(file, base).then((data) => void Object.assign(bundle, data));
        loaded.set(id, p);
        p.catch(() => loaded.delete(id));
      }
      return p;
    },
    speakerColour: (key) => style(key).colour,
    speakerStyle: style,
    conditionColour: conditionColour(bundle),
    codeColour: (id) => {
      let c = colours.get(id);
      if (!c) colours.set(id, (c = codeColour(codebooks.get(id))));
      return c;
    },
    codebook: (id) => codebooks.get(id),
    chunkIfLoaded: (id) => chunks.get(id),
    loadChunk: (id) => {
      const cached = chunks.get(id);
      if (cached) return Promise.resolve(cached);
      let p = pending.get(id);
      if (!p) {
        const summary = summaries.get(id);
        if (!summary) return Promise.reject(new Error(`unknown session ${id}`));
        p = fetchJson<SessionChunk>(summary.chunk, base).then((chunk) => {
          chunks.set(id, chunk);
          return chunk;
        });
        pending.set(id, p);
        p.catch(() => pending.delete(id));
      }
      return p;
    },
    prefs: new Map(),
  };
}

/** Label for a coder id in selectors: "llm", "rules", "human:alice" -> "human (alice)". */
export function coderLabel(coder: string): string {
  return coder.startsWith("human:") ? `human (${coder.slice(6)})` : coder;
}

/** A remembered preference, falling back to the first allowed value. */
export function pref(ctx: ViewContext, key: string, allowed: string[], fallback?: string): string {
  const v = ctx.prefs.get(key);
  if (v !== undefined && allowed.includes(v)) return v;
  return fallback !== undefined && allowed.includes(fallback) ? fallback : allowed[0];
}

/**
 * The code set a view shows: the codebook and coder the user picked (remembered across views),
 * defaulting to bales-ipa and to an LLM coder when there is one, else the rules coder; plus
 * the two selectors that change it (and redraw).
 */
export function chooseCodeSet<T extends { codebook: string; coder: string }>(
  ctx: ViewContext,
  sets: readonly T[],
  redraw: () => void,
): { cb: string; coder: string; set: T; controls: HTMLElement[] } {
  const codebooks = [...new Set(sets.map((s) => s.codebook))];
  const cb = pref(ctx, "codebook", codebooks, "bales-ipa");
  const coders = sets.filter((s) => s.codebook === cb).map((s) => s.coder);
  const coder = pref(ctx, "coder", coders, coders.find((c) => c.startsWith("llm")) ?? "rules");
  const controls: HTMLElement[] = [
    select(
      "Codebook",
      codebooks.map((c) => ({ value: c, label: ctx.codebook(c)?.title ?? c })),
      cb,
      (v) => (ctx.prefs.set("codebook", v), redraw()),
      "codebook",
    ),
    select(
      "Coder",
      coders.map((c) => ({ value: c, label: coderLabel(c) })),
      coder,
      (v) => (ctx.prefs.set("coder", v), redraw()),
      "coder",
    ),
  ];
  const status = coderStatus(ctx, cb, coder);
  if (status) controls.push(status);
  return { cb, coder, set: sets.find((s) => s.codebook === cb && s.coder === coder)!, controls };
}

/**
 * Whether the shown coder's codes were checked against the study's people ("rules: BELOW FLOOR,
 * kappa 0.17: check before use"), beside the coder selector: a view drawing a machine coder's
 * codes must not look as trustworthy as one drawing people's. Nothing for people, or for an index
 * without the words (an older site).
 */
export function coderStatus(ctx: ViewContext, codebook: string, coder: string): HTMLElement | null {
  const label = ctx.codebook(codebook)?.validation?.[coder];
  if (label === undefined || coder.startsWith("human:")) return null;
  return el("span", { class: "note coder-status", "data-coder-status": coder }, `${coderLabel(coder)}: ${label}`);
}

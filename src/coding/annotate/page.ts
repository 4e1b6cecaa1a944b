/**
 * The coding page: one HTML shell, one stylesheet and one script, served by server.ts under the
 * run's token (relative URLs, so the token travels with every request by itself). The script is
 * `annotateClient` below, type-checked with the rest and sent as its source text: the page needs
 * no bundler and no network. Transcript text only ever reaches the page through `textContent`.
 */

export function annotateHtml(title: string): string {
  const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${esc(title)}</title>
<link rel="stylesheet" href="style.css">
<script defer src="app.js"></script>
</head>
<body>
<noscript>The coding page needs JavaScript.</noscript>
<header><h1 id="title"></h1><p id="progress" aria-live="polite"></p></header>
<main id="desk" data-ready="false">
<section id="turn" aria-label="Turn to code">
<p id="where"></p>
<ol id="context"></ol>
<div id="compared" hidden><h2>Their codes</h2><div id="compared-codes"></div></div>
<div id="choices" role="group" aria-label="Categories"></div>
<label for="note">Note for this turn (N)</label>
<textarea id="note" rows="2"></textarea>
<nav aria-label="Turns">
<button id="prev" type="button">← Previous</button>
<button id="undo" type="button">Undo (U)</button>
<button id="save" type="button">Save (Enter)</button>
<button id="next" type="button">Next →</button>
</nav>
<p id="status" role="status" aria-live="polite"></p>
<p id="help">Keys: the key on a category chooses it (and saves it; with several categories allowed, Enter saves); ← → move; U undoes the last answer; N writes a note, Esc leaves it; Ctrl+Enter in the note saves (or, before a category is chosen, leaves the note for you to choose one).</p>
</section>
<aside id="codebook" aria-label="Codebook"><h2 id="codebook-title"></h2><p id="instructions"></p><dl id="definitions"></dl></aside>
</main>
</body>
</html>
`;
}

export const ANNOTATE_CSS = `
body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1d232a;background:#f6f7f9}
header{display:flex;gap:1rem;align-items:baseline;padding:.5rem 1rem;background:#fff;border-bottom:1px solid #d8dde3}
header h1{font-size:1.1rem;margin:0}
main{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:1rem;padding:1rem}
#context{list-style:none;padding:0;margin:0 0 1rem}
#context li{padding:.4rem .6rem;margin:.25rem 0;background:#fff;border-radius:4px;border:1px solid #e2e6ea;white-space:pre-wrap}
#context li.target{border:2px solid #2861c9;background:#eef3fc}
#context .speaker{font-weight:600;margin-right:.4rem}
#context .kind{font-size:.75rem;color:#5b6673;margin-right:.4rem}
#choices{display:flex;flex-wrap:wrap;gap:.35rem;margin:.5rem 0}
#choices button{padding:.35rem .55rem;border:1px solid #b9c2cc;border-radius:4px;background:#fff;cursor:pointer}
#choices button[aria-pressed=true]{background:#2861c9;color:#fff;border-color:#2861c9}
#choices kbd{font-weight:700;margin-right:.3rem}
button:focus-visible,textarea:focus-visible{outline:3px solid #f0a500;outline-offset:1px}
textarea{width:100%;box-sizing:border-box;display:block;margin:.25rem 0 .5rem}
nav{display:flex;gap:.5rem}
#status.error{color:#b00020}
#compared-codes{display:flex;gap:1rem}
#compared-codes div{background:#fff;border:1px solid #e2e6ea;padding:.4rem .6rem;border-radius:4px;flex:1}
aside{position:sticky;top:1rem;align-self:start;max-height:calc(100vh - 6rem);overflow:auto}
aside dl dt{font-weight:600;margin-top:.6rem}
aside dl dd{margin:0}
aside .examples{color:#5b6673;font-style:italic}
#help{font-size:.8rem;color:#5b6673}
`;

/** The page's script as served (see annotateClient). */
export function annotateScript(): string {
  // `__name` guards against a source transform (tsx, vitest) that wraps functions to keep their names.
  return `"use strict";var __name=function(f){return f};(${annotateClient.toString()})();\n`;
}

/** Runs in the browser: must stay self-contained (no imports, no outer variables). */
function annotateClient(): void {
  interface Category {
    id: string;
    label: string;
    definition: string;
    examples: string[];
    key: string;
  }
  interface State {
    title: string;
    mode: "code" | "adjudicate";
    writer: string;
    compared: string[];
    codebook: { id: string; title: string; version: string; multiple: boolean; instructions: string; categories: Category[] };
    total: number;
    done: number;
    resume: number;
    canUndo: boolean;
  }
  interface Line {
    speaker: string;
    kind: string;
    type: string;
    text: string;
    target: boolean;
  }
  interface Item {
    index: number;
    total: number;
    session: string;
    turn: string;
    context: Line[];
    answer: { codes: string[]; note: string } | null;
    compared: { coder: string; codes: string[]; note: string }[];
  }
  interface Saved {
    item: Item | null;
    done: number;
    canUndo: boolean;
  }

  const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
  const el = (tag: string, text?: string, cls?: string): HTMLElement => {
    const node = document.createElement(tag);
    if (text !== undefined) node.textContent = text;
    if (cls) node.className = cls;
    return node;
  };
  let state: State;
  let item: Item;
  let chosen = new Set<string>();
  let busy = false;

  function status(message: string, error = false): void {
    const node = $("status");
    node.textContent = message;
    node.className = error ? "error" : "";
  }

  async function call<T>(path: string, payload?: unknown): Promise<T> {
    const response = await fetch(
      path,
      payload === undefined ? {} : { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(payload) },
    );
    const data = (await response.json()) as T & { error?: string };
    if (!response.ok) throw new Error(data.error ?? `HTTP ${response.status}`);
    return data;
  }

  function label(id: string): string {
    return state.codebook.categories.find((c) => c.id === id)?.label ?? id;
  }

  function progress(): void {
    $("progress").textContent =
      `${state.done} of ${state.total} ${state.mode === "code" ? "coded" : "decided"} · turn ${item ? item.index + 1 : 0} of ${state.total}`;
    ($("undo") as HTMLButtonElement).disabled = !state.canUndo;
  }

  function render(): void {
    $("where").textContent = `Session ${item.session}, turn ${item.turn}`;
    const list = $("context");
    list.replaceChildren(
      ...item.context.map((line) => {
        const li = el("li", undefined, line.target ? "target" : "");
        if (line.target) li.setAttribute("aria-current", "true");
        li.append(
          el("span", line.speaker, "speaker"),
          el("span", line.type === "message" ? line.kind : `${line.kind}, ${line.type}`, "kind"),
          el("span", line.text, "text"),
        );
        return li;
      }),
    );
    const compared = $("compared");
    compared.hidden = item.compared.length === 0;
    $("compared-codes").replaceChildren(
      ...item.compared.map((c) => {
        const box = el("div");
        box.append(el("strong", c.coder), el("p", c.codes.map(label).join(", ") || "(not coded)"));
        if (c.note) box.append(el("p", `Note: ${c.note}`, "examples"));
        return box;
      }),
    );
    chosen = new Set(item.answer?.codes ?? []);
    for (const button of $("choices").querySelectorAll("button")) button.setAttribute("aria-pressed", String(chosen.has(button.dataset.id ?? "")));
    ($("note") as HTMLTextAreaElement).value = item.answer?.note ?? "";
    progress();
    $("desk").dataset.index = String(item.index);
  }

  async function show(index: number): Promise<void> {
    const target = Math.min(Math.max(index, 0), state.total - 1);
    item = await call<Item>(`api/item?i=${target}`);
    render();
  }

  async function save(advance: boolean): Promise<void> {
    if (busy) return;
    if (chosen.size === 0) return status("Choose a category first.", true);
    busy = true;
    try {
      const saved = await call<Saved>("api/answer", { index: item.index, codes: [...chosen], note: ($("note") as HTMLTextAreaElement).value });
      state.done = saved.done;
      state.canUndo = saved.canUndo;
      status(`Saved turn ${item.index + 1}: ${[...chosen].map(label).join(", ")}`);
      if (advance && item.index < state.total - 1) await show(item.index + 1);
      else if (saved.item) {
        item = saved.item;
        render();
      }
      if (state.done === state.total) status(`All ${state.total} turns ${state.mode === "code" ? "coded" : "decided"}. You can close this page.`);
    } catch (error) {
      status(`Not saved: ${(error as Error).message}`, true);
    } finally {
      busy = false;
    }
  }

  async function undo(): Promise<void> {
    if (busy) return;
    busy = true;
    try {
      const saved = await call<Saved>("api/undo", {});
      state.done = saved.done;
      state.canUndo = saved.canUndo;
      if (saved.item) {
        item = saved.item;
        render();
        status(`Undone: turn ${item.index + 1} ${item.answer ? `is back to ${item.answer.codes.map(label).join(", ")}` : "has no answer now"}`);
      } else status("Nothing to undo in this sitting.");
    } catch (error) {
      status(`Not undone: ${(error as Error).message}`, true);
    } finally {
      busy = false;
    }
  }

  function choose(id: string): void {
    if (state.codebook.multiple) {
      if (chosen.has(id)) chosen.delete(id);
      else chosen.add(id);
      for (const button of $("choices").querySelectorAll("button")) button.setAttribute("aria-pressed", String(chosen.has(button.dataset.id ?? "")));
      return;
    }
    chosen = new Set([id]);
    void save(true);
  }

  function setup(): void {
    $("title").textContent = state.title;
    $("codebook-title").textContent = `${state.codebook.title} (${state.codebook.id} ${state.codebook.version})`;
    $("instructions").textContent = state.codebook.instructions;
    $("choices").replaceChildren(
      ...state.codebook.categories.map((c) => {
        const button = el("button") as HTMLButtonElement;
        button.type = "button";
        button.dataset.id = c.id;
        button.setAttribute("aria-pressed", "false");
        button.append(el("kbd", c.key), document.createTextNode(c.label));
        button.addEventListener("click", () => choose(c.id));
        return button;
      }),
    );
    $("definitions").replaceChildren(
      ...state.codebook.categories.flatMap((c) => {
        const dd = el("dd", c.definition);
        if (c.examples.length > 0) dd.append(el("div", `e.g. ${c.examples.join(" · ")}`, "examples"));
        return [el("dt", `${c.key} ${c.label}`), dd];
      }),
    );
    $("prev").addEventListener("click", () => void show(item.index - 1));
    $("next").addEventListener("click", () => void show(item.index + 1));
    $("undo").addEventListener("click", () => void undo());
    $("save").addEventListener("click", () => void save(false));
    const note = $("note") as HTMLTextAreaElement;
    note.addEventListener("keydown", (event) => {
      if (event.key === "Escape") note.blur();
      else if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        // No category yet: keep the note and leave it, so the next key chooses one (never a
        // keyboard trap where every key goes on into the note and nothing is coded).
        if (chosen.size === 0) {
          note.blur();
          status("Note kept. Now choose a category: press its key.", true);
        } else void save(false);
      }
    });
    document.addEventListener("keydown", (event) => {
      if (event.target instanceof HTMLTextAreaElement || event.altKey || event.metaKey) return;
      if (event.ctrlKey) {
        if (event.key === "z") {
          event.preventDefault();
          void undo();
        }
        return;
      }
      const category = state.codebook.categories.find((c) => c.key !== "" && c.key === event.key.toLowerCase());
      if (category) {
        event.preventDefault();
        choose(category.id);
      } else if (event.key === "ArrowLeft") void show(item.index - 1);
      else if (event.key === "ArrowRight") void show(item.index + 1);
      else if (event.key === "u" || event.key === "U") void undo();
      else if (event.key === "n" || event.key === "N") {
        event.preventDefault();
        note.focus();
      } else if (event.key === "Enter" && !(event.target instanceof HTMLButtonElement)) {
        event.preventDefault();
        void save(true);
      }
    });
  }

  void (async () => {
    try {
      state = await call<State>("api/state");
      setup();
      if (state.total === 0) {
        status("No turns to code.");
        return;
      }
      await show(state.resume);
      $("desk").dataset.ready = "true";
    } catch (error) {
      status(`Could not load: ${(error as Error).message}`, true);
    }
  })();
}

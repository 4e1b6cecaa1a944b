import type { SiteIndex } from "../src/report/types.js";
import { el } from "./lib/dom.js";
import { createContext, type ViewContext } from "./lib/context.js";
import { installTooltip, hideTip, setTipProvider } from "./lib/tooltip.js";
import { views } from "./views/index.js";

/**
 * The dashboard app: loads the site's index named in <meta name="colloquy-data"> (a separate
 * file, so the page needs no inline script under its CSP), then shows one view per tab, routed
 * by the URL hash (#/overview, #/who, …), fetching a view's own data file when it is first shown.
 */
async function start(): Promise<void> {
  const root = document.getElementById("app")!;
  const dataFile = document.querySelector('meta[name="colloquy-data"]')?.getAttribute("content") ?? "data.json";
  const base = new URL(".", document.baseURI);
  let index: SiteIndex;
  try {
    const response = await fetch(new URL(dataFile, base));
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    index = (await response.json()) as SiteIndex;
  } catch (error) {
    root.replaceChildren(
      el(
        "div",
        { class: "empty" },
        `Could not load the study data (${dataFile}): ${(error as Error).message}. Serve this folder with \`colloquy serve\` or any static web server (browsers block file:// fetches).`,
      ),
    );
    return;
  }
  installTooltip();
  const ctx = createContext(index, base);
  const nav = el("nav", { class: "tabs", role: "tablist" });
  const main = el("main", { id: "view" });
  const header = el(
    "header",
    {},
    el("div", { class: "brand" }, el("strong", {}, "Colloquy"), " · ", el("span", { class: "study-title" }, index.study.title ?? index.study.name)),
    nav,
  );
  root.replaceChildren(header, main);
  for (const v of views) {
    const a = el("a", { href: `#/${v.id}`, role: "tab", "data-view": v.id }, v.title);
    nav.append(a);
  }
  let shown = 0;
  const show = () => {
    const token = ++shown;
    const id = location.hash.replace(/^#\/?/, "").split("?")[0] || "overview";
    const view = views.find((v) => v.id === id) ?? views[0];
    nav.querySelectorAll("a").forEach((a) => a.setAttribute("aria-selected", String(a.getAttribute("data-view") === view.id)));
    hideTip();
    setTipProvider(null);
    main.replaceChildren();
    main.setAttribute("data-view", view.id);
    main.setAttribute("data-ready", "false");
    main.removeAttribute("data-drawn-ms");
    main.removeAttribute("data-load-ms");
    const loading = performance.now();
    let t0 = loading;
    renderView(
      ctx,
      view,
      main,
      () => token === shown,
      () => {
        // The view's times start once its data is there; fetching it is timed apart (data-load-ms).
        t0 = performance.now();
        if (token === shown) main.setAttribute("data-load-ms", String(Math.round(t0 - loading)));
      },
    ).finally(() => {
      if (token !== shown) return;
      main.setAttribute("data-ready", "true");
      main.setAttribute("data-render-ms", String(Math.round(performance.now() - t0)));
      // data-drawn-ms: until the view's first frame is laid out and painted (the callback after
      // the next animation frame runs once that frame is done); bench/dashboard.ts reports it.
      requestAnimationFrame(() =>
        setTimeout(() => {
          if (token === shown) main.setAttribute("data-drawn-ms", String(Math.round(performance.now() - t0)));
        }),
      );
    });
  };
  window.addEventListener("hashchange", show);
  show();
}

/**
 * Draw a view once its data file is there. `current` says whether it is still the view shown: a
 * reader who moved on while the file loaded must not get this view's charts under the next one.
 */
async function renderView(ctx: ViewContext, view: (typeof views)[number], main: HTMLElement, current: () => boolean, loaded: () => void): Promise<void> {
  main.append(el("h1", {}, view.title));
  const empty = ctx.bundle.empty[view.id];
  try {
    await ctx.loadView(view.id);
    if (!current()) return;
    loaded();
    await view.render(ctx, main, empty);
  } catch (error) {
    console.error(error);
    if (current()) main.append(el("div", { class: "empty error" }, `This view failed to render: ${(error as Error).message}`));
  }
}

void start();

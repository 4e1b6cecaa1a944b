import type { Page } from "playwright-core";
import { lab } from "d3";
import { CODE_COLOURS, CONDITION_COLOURS, GREY_STEP, SPEAKER_COLOURS, colourAt } from "../../src/report/palette.js";
import { openView } from "./browser.js";

/**
 * What a reader checks on every chart of the dashboard (issue 39), run in Chromium by
 * test/web/chart-checks.test.ts on a study of 1,200 turns and by bench/chart-checks.ts at
 * 300,000: labels not cut, round axis ticks, and one colour per meaning.
 */

/**
 * Text in the view's charts that a reader cannot read whole: a text node whose box pokes out of
 * its <svg> (more than 1 px), text shortened with "…" that has no tooltip holding all of it, or
 * a legend entry shortened although it would fit ("Krippendorff's alpha (95% C…").
 * Runs in the page; `root` is the page's <main> or the document of exported SVGs.
 */
export const FIND_CLIPPED = (root: ParentNode) => {
  const out: string[] = [];
  for (const svg of root.querySelectorAll("svg")) {
    const box = svg.getBoundingClientRect();
    if (box.width === 0) continue;
    for (const text of svg.querySelectorAll("text")) {
      const content = text.textContent ?? "";
      if (!content.trim()) continue;
      const r = text.getBoundingClientRect();
      if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1) {
        out.push(
          `cut by the box of ${svg.getAttribute("aria-label")}: "${content}" (${Math.round(r.left - box.left)}..${Math.round(r.right - box.left)} of ${Math.round(box.width)} wide, ${Math.round(r.top - box.top)}..${Math.round(r.bottom - box.top)} of ${Math.round(box.height)} high)`,
        );
      }
      if (content.endsWith("…")) {
        const tip = text.closest("[data-tip]")?.getAttribute("data-tip") ?? "";
        if (!tip.startsWith(content.slice(0, -1))) out.push(`shortened without a tooltip in ${svg.getAttribute("aria-label")}: "${content}"`);
        // Legends wrap instead: an entry may be shortened only when it is wider than the chart.
        if (text.closest(".legend-item")) {
          text.textContent = tip;
          const full = text.getComputedTextLength();
          text.textContent = content;
          if (full + 32 <= box.width) out.push(`legend entry shortened though it fits in ${svg.getAttribute("aria-label")}: "${content}"`);
        }
      }
    }
  }
  return out;
};

/**
 * The tick values of every numeric axis in the view's charts (d3 binds each tick's value to its
 * <g class="tick">, whatever the label's format: "20%", "1:40", "1,000"), per chart. Band axes
 * (bound to category names) are left out.
 */
const AXIS_TICKS = (root: ParentNode) => {
  const out: { chart: string; ticks: number[] }[] = [];
  for (const svg of root.querySelectorAll("svg")) {
    const chart = svg.closest("[data-chart]")?.getAttribute("data-chart") ?? svg.getAttribute("aria-label") ?? "?";
    const axes = new Set([...svg.querySelectorAll("g.tick")].map((t) => t.parentElement!));
    for (const axis of axes) {
      const values = [...axis.querySelectorAll(":scope > g.tick")].map((t) => (t as unknown as { __data__: unknown }).__data__);
      if (values.length > 0 && values.every((v) => typeof v === "number")) out.push({ chart, ticks: values as number[] });
    }
  }
  return out;
};

/**
 * Ticks a reader finds round: evenly spaced by 1, 2 or 5 times a power of ten, each a multiple of
 * that step (0, 0.5, 1, 1.5; not 0.41, 0.82, 1.23). Returns what is wrong, or nothing.
 */
export function unroundTicks(ticks: number[]): string | undefined {
  if (ticks.length < 2) return undefined;
  const step = ticks[1] - ticks[0];
  const tolerance = Math.abs(step) * 1e-6;
  const mantissa = step / 10 ** Math.floor(Math.log10(step));
  if (![1, 2, 5, 10].some((m) => Math.abs(mantissa - m) < 1e-6)) return `step ${step} is not 1, 2 or 5 times a power of ten`;
  for (const [i, t] of ticks.entries()) {
    if (i > 0 && Math.abs(t - ticks[i - 1] - step) > tolerance) return `uneven steps at ${t}`;
    if (Math.abs(t / step - Math.round(t / step)) * step > tolerance) return `${t} is not a multiple of ${step}`;
  }
  return undefined;
}

/** A coloured mark or legend entry of a chart: the item it stands for and its colour. */
interface Swatch {
  chart: string;
  item: string;
  colour: string;
}

/**
 * Legend entries and marks that name their series (data-series), per chart, with their colour.
 * A label is read as the item its colour stands for: "speaker: Critic" is Critic, "control
 * (control)" is control, "c1 · control" (a session drawn in its condition's colour) is control.
 */
const SWATCHES = (root: ParentNode) => {
  const out: { chart: string; item: string; colour: string }[] = [];
  const itemOf = (label: string) =>
    label
      .replace(/^speaker: /, "")
      .replace(/ \(control\)$/, "")
      .replace(/^.* · /, "");
  for (const card of root.querySelectorAll("[data-chart]")) {
    const chart = card.getAttribute("data-chart")!;
    for (const entry of card.querySelectorAll(".legend-item")) {
      const key = entry.querySelector("rect, line");
      const colour = key?.getAttribute(key.tagName === "line" ? "stroke" : "fill");
      const item = itemOf(entry.getAttribute("data-tip") ?? "");
      if (colour) out.push({ chart, item, colour: colour.toUpperCase() });
    }
    for (const mark of card.querySelectorAll("[data-series]")) {
      const colour = mark.tagName === "path" && mark.getAttribute("fill") === "none" ? mark.getAttribute("stroke") : mark.getAttribute("fill");
      if (colour) out.push({ chart, item: itemOf(mark.getAttribute("data-series")!), colour: colour.toUpperCase() });
    }
  }
  return out;
};

/** Every colour a palette gives (three rounds: the palette, then lighter, then darker), to the meaning it stands for. */
const MEANING = new Map<string, string>(
  (
    [
      ["condition", CONDITION_COLOURS],
      ["code", CODE_COLOURS],
      ["speaker", SPEAKER_COLOURS],
    ] as const
  ).flatMap(([meaning, palette]) => Array.from({ length: palette.length * 3 }, (_v, i) => [colourAt(palette, i).toUpperCase(), meaning] as [string, string])),
);

/**
 * One colour per meaning, over every chart seen: a palette colour stands for one item only (the
 * same orange is never a person in one chart and a condition in the next), an item keeps its
 * colour in every chart, and within a chart two items never share a colour. Colours outside the
 * palettes (greys of measures and "not coded", the heatmaps' ramps) are no items' and are skipped.
 */
export function paletteProblems(swatches: readonly Swatch[]): string[] {
  const problems: string[] = [];
  const itemsOf = new Map<string, Map<string, string>>();
  const colourOf = new Map<string, Map<string, string>>();
  for (const s of swatches) {
    const meaning = MEANING.get(s.colour);
    if (!meaning) continue;
    let items = itemsOf.get(s.colour);
    if (!items) itemsOf.set(s.colour, (items = new Map()));
    if (!items.has(s.item)) items.set(s.item, s.chart);
    let where = colourOf.get(s.item);
    if (!where) colourOf.set(s.item, (where = new Map()));
    if (!where.has(s.chart)) where.set(s.chart, s.colour);
  }
  for (const [colour, items] of itemsOf)
    if (items.size > 1)
      problems.push(`${colour} (${MEANING.get(colour)}) stands for ${[...items].map(([item, chart]) => `"${item}" (${chart})`).join(" and ")}`);
  for (const [item, where] of colourOf) {
    const colours = new Set(where.values());
    if (colours.size > 1) problems.push(`"${item}" is drawn in ${[...where].map(([chart, c]) => `${c} in ${chart}`).join(", ")}`);
  }
  return problems;
}

/**
 * Words a reader sees in the view that are internal camelCase names ("branchingRatio",
 * "pairedTTest"): in headings, notes, controls, tables and the charts' text, leaving out the
 * transcript and other study text (participants' own words may be anything).
 */
export const FIND_CAMEL_CASE = (root: ParentNode) => {
  const out: string[] = [];
  const walker = document.createTreeWalker(root as Node, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    // Skipped: people's words, and commands shown as typed (<code>: a study folder's name is the user's).
    if (!parent || parent.closest(".transcript, [data-transcript], table[data-table='disagreements'], .tooltip, code, script, style")) continue;
    for (const m of (node.textContent ?? "").matchAll(/\b[a-z]+(?:[A-Z][a-z0-9]*)+\b/g))
      out.push(`"${m[0]}" in <${parent.tagName.toLowerCase()}>: ${(node.textContent ?? "").trim().slice(0, 80)}`);
  }
  for (const el of root.querySelectorAll("option, [aria-label], [data-tip]"))
    for (const value of [el.getAttribute("aria-label"), el.getAttribute("data-tip")])
      for (const m of (value ?? "").matchAll(/\b[a-z]+(?:[A-Z][a-z0-9]*)+\b/g)) out.push(`"${m[0]}" in an attribute: ${(value ?? "").slice(0, 80)}`);
  return out;
};

export interface ChartReport {
  clipped: string[];
  ticks: string[];
  /** camelCase names in text a reader sees. */
  internalNames: string[];
  swatches: Swatch[];
  /** Numeric axes checked. */
  axes: number;
}

/** Draw one view and run the checks on its charts. */
export async function checkChartsOf(page: Page, url: string, view: string): Promise<ChartReport> {
  await openView(page, url, view);
  const main = await page.evaluateHandle(() => document.querySelector("main")!);
  const clipped = await page.evaluate(FIND_CLIPPED, main);
  const axes = await page.evaluate(AXIS_TICKS, main);
  const swatches = await page.evaluate(SWATCHES, main);
  const internalNames = await page.evaluate(FIND_CAMEL_CASE, main);
  const ticks = axes.flatMap((a) => {
    const problem = unroundTicks(a.ticks);
    return problem ? [`${view} ${a.chart}: ticks ${a.ticks.join(", ")}: ${problem}`] : [];
  });
  return {
    clipped: clipped.map((p) => `${view}: ${p}`),
    ticks,
    internalNames: internalNames.map((p) => `${view}: ${p}`),
    swatches: swatches.map((s) => ({ ...s, chart: `${view}/${s.chart}` })),
    axes: axes.length,
  };
}

/** Points per CSS pixel (96 px and 72 pt to the inch). */
const PT_PER_PX = 0.75;

/** A series' mark in a report figure: its colour, the texture laid over it, and whether a label beside it (not the legend) names it. */
export interface GreySwatch {
  chart: string;
  item: string;
  colour: string;
  /** The pattern's drawing over the colour ("" for a plain fill). */
  texture: string;
  /** Named by a text of the figure outside its legend (a row's label). */
  labelled: boolean;
}

/**
 * What a reader of the printed report meets in each figure, measured by the browser on SVGs
 * drawn at their declared size (no CSS scaling): the printed size of every text in points (its
 * computed font size times the figure's scale, in CSS pixels, times 0.75), texts that leave the
 * figure or overlap one another, the declared width, and each series' colour and second channel
 * for the greyscale check. Runs in the page; `root` is the document holding the figures.
 */
const MEASURE_PRINT = (root: ParentNode) => {
  const squash = (t: string | null) => (t ?? "").replace(/\s+/g, "");
  const figures: { chart: string; widthPx: number; smallestPt: number; problems: string[]; swatches: GreySwatch[] }[] = [];
  for (const svg of root.querySelectorAll("svg")) {
    const chart = svg.querySelector(":scope > title")?.textContent ?? "?";
    const box = svg.getBoundingClientRect();
    const problems: string[] = [];
    const texts = [...svg.querySelectorAll("text")].filter((t) => (t.textContent ?? "").trim() !== "");
    let smallestPt = Infinity;
    const boxes = texts.map((t) => t.getBoundingClientRect());
    for (const [i, t] of texts.entries()) {
      const ctm = t.getScreenCTM()!;
      const pt = Number.parseFloat(getComputedStyle(t).fontSize) * Math.hypot(ctm.a, ctm.b) * 0.75;
      smallestPt = Math.min(smallestPt, pt);
      if (pt < 7) problems.push(`"${t.textContent}" prints at ${pt.toFixed(1)} pt`);
      const r = boxes[i];
      if (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5)
        problems.push(
          `"${t.textContent}" leaves the figure (${Math.round(r.left - box.left)}..${Math.round(r.right - box.left)} of ${Math.round(box.width)} px wide)`,
        );
      for (const [j, o] of boxes.entries()) {
        if (j <= i) continue;
        const w = Math.min(r.right, o.right) - Math.max(r.left, o.left);
        const h = Math.min(r.bottom, o.bottom) - Math.max(r.top, o.top);
        if (w > 0.5 && h > 1) problems.push(`"${t.textContent}" overlaps "${texts[j].textContent}"`);
      }
    }
    const swatches: GreySwatch[] = [];
    for (const mark of svg.querySelectorAll("[data-series]")) {
      const fill = mark.getAttribute("fill") ?? "";
      const id = /^url\(#(.+)\)$/.exec(fill)?.[1];
      const pattern = id ? svg.querySelector(`pattern#${CSS.escape(id)}`) : null;
      const item = mark.getAttribute("data-series")!;
      swatches.push({
        chart,
        item,
        colour: (pattern ? pattern.querySelector("rect")!.getAttribute("fill")! : fill).toUpperCase(),
        texture: pattern?.querySelector("path")?.getAttribute("d") ?? "",
        labelled: texts.some((t) => !t.closest(".legend-item") && squash(t.textContent) === squash(item)),
      });
    }
    figures.push({ chart, widthPx: box.width, smallestPt: texts.length ? smallestPt : 0, problems, swatches });
  }
  return figures;
};

/**
 * Series of one figure a reader cannot tell apart in a greyscale print: two items whose colours
 * differ by less than GREY_STEP in CIE L* (palette.ts), with the same texture, and not both named
 * by a label beside them. Colour may say more, but never alone what only colour says.
 */
export function greyscaleProblems(swatches: readonly GreySwatch[]): string[] {
  const charts = new Map<string, Map<string, GreySwatch>>();
  for (const s of swatches) {
    let items = charts.get(s.chart);
    if (!items) charts.set(s.chart, (items = new Map()));
    const before = items.get(s.item);
    items.set(s.item, before ? { ...before, labelled: before.labelled || s.labelled } : s);
  }
  const problems: string[] = [];
  for (const [chart, items] of charts) {
    const list = [...items.values()];
    for (const [i, a] of list.entries())
      for (const b of list.slice(i + 1)) {
        const difference = Math.abs(lab(a.colour).l - lab(b.colour).l);
        if (difference < GREY_STEP && a.texture === b.texture && !(a.labelled && b.labelled))
          problems.push(
            `${chart}: "${a.item}" (${a.colour}) and "${b.item}" (${b.colour}) differ by ${difference.toFixed(1)} in L* (< ${GREY_STEP}) with no texture or label of their own`,
          );
      }
  }
  return problems;
}

/** The report's figures drawn at their declared size in a bare page (optionally in another font), measured as printed. */
export async function measurePrint(page: Page, svgs: readonly string[], font?: string) {
  const style = font ? `<style>svg text{font-family:"${font}" !important}</style>` : "";
  await page.setContent(`<!doctype html><html><head>${style}</head><body style="margin:0">${svgs.map((s) => `<div>${s}</div>`).join("")}</body></html>`);
  // tsx (the bench) keeps function names with a __name helper that a fresh page lacks.
  await page.evaluate("window.__name ??= (f) => f");
  const figures = await page.evaluate(MEASURE_PRINT, await page.evaluateHandle(() => document));
  return figures.map((f) => ({ ...f, widthMm: (f.widthPx * PT_PER_PX * 25.4) / 72 }));
}

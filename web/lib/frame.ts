import { el } from "./dom.js";
import { fmtCell } from "./format.js";

/** Rows of a chart's data table (the same numbers the chart draws). */
export interface TableData {
  columns: string[];
  rows: (string | number | null)[][];
}

function fileSafe(name: string): string {
  return (
    name
      .replace(/[^A-Za-z0-9._-]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .toLowerCase() || "chart"
  );
}

function download(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = el("a", { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Serialise a chart as a standalone SVG file (fonts and colours are presentation attributes). */
export function svgText(svg: SVGSVGElement): string {
  const copy = svg.cloneNode(true) as SVGSVGElement;
  copy.setAttribute("xmlns", "http://www.w3.org/2000/svg");
  copy.querySelectorAll(".highlight").forEach((n) => n.classList.remove("highlight"));
  return '<?xml version="1.0" encoding="UTF-8"?>\n' + new XMLSerializer().serializeToString(copy);
}

export function exportSvg(svg: SVGSVGElement, name: string): void {
  download(new Blob([svgText(svg)], { type: "image/svg+xml" }), `${fileSafe(name)}.svg`);
}

/** Render the SVG at 2x into a canvas and download it as PNG (for papers and slides). */
export function exportPng(svg: SVGSVGElement, name: string): Promise<void> {
  return new Promise((ok, fail) => {
    const width = Number(svg.getAttribute("width")) || svg.clientWidth;
    const height = Number(svg.getAttribute("height")) || svg.clientHeight;
    const url = URL.createObjectURL(new Blob([svgText(svg)], { type: "image/svg+xml" }));
    const img = new Image();
    img.onload = () => {
      const scale = 2;
      const canvas = el("canvas", { width: width * scale, height: height * scale });
      const ctx = canvas.getContext("2d")!;
      ctx.fillStyle = "#fff";
      ctx.fillRect(0, 0, canvas.width, canvas.height);
      ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
      URL.revokeObjectURL(url);
      canvas.toBlob((blob) => {
        if (!blob) return fail(new Error("PNG export failed"));
        download(blob, `${fileSafe(name)}.png`);
        ok();
      }, "image/png");
    };
    img.onerror = () => fail(new Error("PNG export failed: the SVG could not be drawn"));
    img.src = url;
  });
}

function tableElement(data: TableData): HTMLTableElement {
  const table = el("table", { class: "data-table" });
  const head = el("tr");
  for (const c of data.columns) head.append(el("th", {}, c));
  table.append(el("thead", {}, head));
  const body = el("tbody");
  for (const row of data.rows) {
    const tr = el("tr");
    for (const cell of row) tr.append(el("td", {}, fmtCell(cell)));
    body.append(tr);
  }
  table.append(body);
  return table;
}

/**
 * A chart card: title, the SVG, and a toolbar with a data-table toggle and SVG/PNG export.
 * `id` names the exported files and is used by tests (`data-chart`).
 *
 * The table is built on its first toggle, not with the chart: a table can hold a row per turn
 * or per concept mention (hundreds of thousands of cells at 100,000 turns) that most readers
 * never open. Pass a function when even computing the rows is worth deferring.
 */
export function chartCard(id: string, title: string, svg: SVGSVGElement, table: TableData | (() => TableData), note?: string): HTMLElement {
  const card = el("figure", { class: "card", "data-chart": id });
  const tableBox = el("div", { class: "table-box", hidden: true });
  let built = false;
  const toggle = el("button", { type: "button", class: "btn", "data-action": "table", "aria-expanded": "false" }, "Table");
  toggle.addEventListener("click", () => {
    if (!built) {
      tableBox.append(tableElement(typeof table === "function" ? table() : table));
      built = true;
    }
    tableBox.hidden = !tableBox.hidden;
    toggle.setAttribute("aria-expanded", String(!tableBox.hidden));
    toggle.textContent = tableBox.hidden ? "Table" : "Chart";
    chartBox.hidden = !tableBox.hidden;
  });
  const svgButton = el("button", { type: "button", class: "btn", "data-action": "svg" }, "SVG");
  svgButton.addEventListener("click", () => exportSvg(svg, id));
  const pngButton = el("button", { type: "button", class: "btn", "data-action": "png" }, "PNG");
  pngButton.addEventListener("click", () => void exportPng(svg, id).catch((e: Error) => console.warn(e.message)));
  const chartBox = el("div", { class: "chart-box" }, svg);
  card.append(
    el("figcaption", {}, el("span", { class: "card-title" }, title), el("span", { class: "toolbar" }, toggle, svgButton, pngButton)),
    chartBox,
    tableBox,
  );
  if (note) card.append(el("p", { class: "note" }, note));
  return card;
}

import type { Chart } from "./document.js";

/**
 * Inline SVG for the HTML report's charts: grouped bars and point estimates with intervals.
 * Self-contained (no script, no external font or style), every label escaped as text.
 */

const PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"];

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

const tick = (v: number) => (Math.abs(v) >= 10 ? v.toFixed(0) : v.toFixed(2));

/** The chart as an <svg> element string (width 720; height grows with the rows). */
export function chartSvg(chart: Chart): string {
  return chart.kind === "bars" ? barsSvg(chart) : intervalsSvg(chart);
}

function barsSvg(chart: Extract<Chart, { kind: "bars" }>): string {
  const left = 230;
  const width = 720;
  const plot = width - left - 60;
  const barH = 10;
  const groupH = chart.series.length * barH + 8;
  const legendH = 18 * Math.ceil(chart.series.length / 4) + 8;
  const height = legendH + chart.categories.length * groupH + 30;
  const max = Math.max(1e-9, ...chart.series.flatMap((s) => s.values.filter((v): v is number => v !== null)));
  const out: string[] = [];
  chart.series.forEach((s, i) => {
    const x = (i % 4) * 170;
    const y = 18 * Math.floor(i / 4) + 12;
    out.push(
      `<rect x="${x}" y="${y - 9}" width="10" height="10" fill="${PALETTE[i % PALETTE.length]}"/><text x="${x + 14}" y="${y}" font-size="11">${escapeXml(s.name)}</text>`,
    );
  });
  chart.categories.forEach((category, c) => {
    const y0 = legendH + c * groupH;
    out.push(`<text x="${left - 6}" y="${y0 + groupH / 2 + 3}" font-size="11" text-anchor="end">${escapeXml(category)}</text>`);
    chart.series.forEach((s, i) => {
      const v = s.values[c];
      if (v === null) return;
      const w = (v / max) * plot;
      out.push(
        `<rect x="${left}" y="${y0 + i * barH}" width="${w.toFixed(1)}" height="${barH - 1}" fill="${PALETTE[i % PALETTE.length]}"><title>${escapeXml(`${s.name}, ${category}: ${tick(v)}`)}</title></rect>`,
      );
    });
  });
  const axisY = legendH + chart.categories.length * groupH + 4;
  out.push(`<line x1="${left}" y1="${axisY}" x2="${left + plot}" y2="${axisY}" stroke="#888"/>`);
  for (const f of [0, 0.5, 1]) out.push(`<text x="${left + f * plot}" y="${axisY + 14}" font-size="10" text-anchor="middle">${tick(f * max)}</text>`);
  out.push(`<text x="${left + plot + 4}" y="${axisY + 4}" font-size="10">${escapeXml(chart.valueLabel)}</text>`);
  return svg(width, height + 8, chart.caption, out);
}

function intervalsSvg(chart: Extract<Chart, { kind: "intervals" }>): string {
  const left = 230;
  const width = 720;
  const plot = width - left - 60;
  const rowH = 24;
  const height = chart.rows.length * rowH + 40;
  const known = chart.rows.flatMap((r) => [r.value, r.lower, r.upper]).filter((v): v is number => v !== null && Number.isFinite(v));
  const [lo, hi] = chart.domain ?? [Math.min(0, ...known), Math.max(1e-9, ...known)];
  const x = (v: number) => left + ((v - lo) / (hi - lo || 1)) * plot;
  const out: string[] = [];
  chart.rows.forEach((r, i) => {
    const y = 12 + i * rowH + rowH / 2;
    out.push(`<text x="${left - 6}" y="${y + 4}" font-size="11" text-anchor="end">${escapeXml(r.label)}</text>`);
    if (r.lower !== null && r.upper !== null)
      out.push(`<line x1="${x(r.lower).toFixed(1)}" y1="${y}" x2="${x(r.upper).toFixed(1)}" y2="${y}" stroke="#333" stroke-width="1.5"/>`);
    if (r.value !== null)
      out.push(
        `<circle cx="${x(r.value).toFixed(1)}" cy="${y}" r="4" fill="${PALETTE[0]}"><title>${escapeXml(`${r.label}: ${tick(r.value)}${r.lower !== null && r.upper !== null ? ` [${tick(r.lower)}, ${tick(r.upper)}]` : ""}`)}</title></circle>`,
      );
  });
  const axisY = 12 + chart.rows.length * rowH + 4;
  out.push(`<line x1="${left}" y1="${axisY}" x2="${left + plot}" y2="${axisY}" stroke="#888"/>`);
  for (const f of [0, 0.25, 0.5, 0.75, 1])
    out.push(`<text x="${x(lo + f * (hi - lo)).toFixed(1)}" y="${axisY + 14}" font-size="10" text-anchor="middle">${tick(lo + f * (hi - lo))}</text>`);
  out.push(`<text x="${left + plot + 4}" y="${axisY + 4}" font-size="10">${escapeXml(chart.valueLabel)}</text>`);
  return svg(width, height, chart.caption, out);
}

function svg(width: number, height: number, title: string, body: string[]): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" font-family="sans-serif" role="img"><title>${escapeXml(title)}</title>${body.join("")}</svg>`;
}

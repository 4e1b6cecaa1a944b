import { createSvg, drawLegend, markerPath, widest, type LegendItem } from "../lib/svg.js";
import type { Marker } from "../lib/palette.js";
import { fmtNum } from "../lib/format.js";

export interface RadarData {
  title: string;
  axes: { id: string; label: string; max: number; min: number }[];
  /** `dash` and `marker` are the second visual channel of speakers past the eighth. */
  series: { label: string; colour: string; dash?: string; marker?: Marker; values: Record<string, number | undefined> }[];
}

const fmt = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(1));

/**
 * The rings of the radar, as fractions of the radius with their labels. When every axis is the
 * same 1..k scale the rings sit on its values (labelled with them); otherwise on quarters of each
 * axis's range (labelled in %).
 */
function rings(axes: RadarData["axes"]): { level: number; label: string }[] {
  const same = axes.length > 0 && axes.every((a) => a.min === axes[0].min && a.max === axes[0].max);
  if (same) {
    const { min, max } = axes[0];
    const span = max - min || 1;
    const step = span <= 10 ? 1 : Math.ceil(span / 5);
    const out: { level: number; label: string }[] = [];
    for (let v = min + step; v <= max; v += step) out.push({ level: (v - min) / span, label: fmt(v) });
    return out;
  }
  return [0.25, 0.5, 0.75, 1].map((level) => ({ level, label: `${level * 100}%` }));
}

/** A radar (spider) chart of mean ratings per scale for several participants or conditions, with a labelled scale on its rings. */
export function radarChart(data: RadarData, options: { size?: number } = {}): SVGSVGElement {
  const size = options.size ?? 420;
  const r = size / 2 - 50;
  const n = data.axes.length;
  const angle = (i: number) => (Math.PI * 2 * i) / n - Math.PI / 2;
  // Room beside the circle for the widest axis label, so no label is cut at the edge.
  const side = Math.max(90, widest(data.axes.map((a) => a.label)) + 30);
  const width = 2 * (r + side);
  const legend: LegendItem[] = data.series.map((s) => ({ label: s.label, colour: s.colour, shape: "line", dash: s.dash, marker: s.marker }));
  const probe = createSvg(1, 1, "probe");
  const legendH = drawLegend(probe.append("g"), legend, width - 20);
  const svg = createSvg(width, size + legendH + 10, data.title);
  const cx = width / 2;
  const cy = size / 2;
  const g = svg.append("g");
  const scaleRings = rings(data.axes);
  for (const ring of scaleRings) {
    g.append("polygon")
      .attr("class", "ring")
      .attr("points", data.axes.map((_a, i) => [cx + Math.cos(angle(i)) * r * ring.level, cy + Math.sin(angle(i)) * r * ring.level].join(",")).join(" "))
      .attr("fill", "none")
      .attr("stroke", "#0002");
  }
  data.axes.forEach((a, i) => {
    g.append("line")
      .attr("x1", cx)
      .attr("y1", cy)
      .attr("x2", cx + Math.cos(angle(i)) * r)
      .attr("y2", cy + Math.sin(angle(i)) * r)
      .attr("stroke", "#0003");
    const lx = cx + Math.cos(angle(i)) * (r + 18);
    const ly = cy + Math.sin(angle(i)) * (r + 18);
    g.append("text")
      .attr("class", "axis-label")
      .attr("x", lx)
      .attr("y", ly)
      .attr("dy", "0.35em")
      .attr("text-anchor", Math.abs(Math.cos(angle(i))) < 0.2 ? "middle" : Math.cos(angle(i)) > 0 ? "start" : "end")
      .text(a.label);
  });
  // The scale: each ring's value, printed along the first (upward) axis.
  g.selectAll("text.ring-label")
    .data(scaleRings)
    .join("text")
    .attr("class", "ring-label")
    .attr("x", cx + 4)
    .attr("y", (d) => cy - r * d.level)
    .attr("dy", "-0.25em")
    .attr("font-size", 10)
    .attr("fill", "#666")
    .text((d) => d.label);
  const scale = (a: RadarData["axes"][number], v: number) => ((v - a.min) / (a.max - a.min || 1)) * r;
  for (const s of data.series) {
    const pts = data.axes.map((a, i) => {
      const v = s.values[a.id] ?? a.min;
      return [cx + Math.cos(angle(i)) * scale(a, v), cy + Math.sin(angle(i)) * scale(a, v)];
    });
    g.append("polygon")
      .attr("class", "radar-series")
      .attr("data-series", s.label)
      .attr("points", pts.map((p) => p.join(",")).join(" "))
      .attr("fill", s.colour)
      .attr("fill-opacity", 0.12)
      .attr("stroke", s.colour)
      .attr("stroke-dasharray", s.dash ?? null)
      .attr("stroke-width", 2);
    g.selectAll(null)
      .data(data.axes)
      .join("path")
      .attr("class", "radar-point")
      .attr("data-series", s.label)
      .attr("transform", (_a, i) => `translate(${pts[i][0]},${pts[i][1]})`)
      .attr("d", markerPath(s.marker ?? "circle", s.marker ? 9 : 7))
      .attr("fill", s.colour)
      .attr("data-tip", (a) => `${s.label}\n${a.label}: mean ${fmtNum(s.values[a.id])}`);
  }
  drawLegend(svg.append("g").attr("transform", `translate(10,${size})`), legend, width - 20);
  return svg.node()!;
}

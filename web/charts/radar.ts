import { createSvg, drawLegend, clip, type LegendItem } from "../lib/svg.js";

export interface RadarData {
  title: string;
  axes: { id: string; label: string; max: number; min: number }[];
  series: { label: string; colour: string; values: Record<string, number | undefined> }[];
}

/** A radar (spider) chart of mean ratings per scale for several participants or conditions. */
export function radarChart(data: RadarData, options: { size?: number } = {}): SVGSVGElement {
  const size = options.size ?? 420;
  const legend: LegendItem[] = data.series.map((s) => ({ label: s.label, colour: s.colour }));
  const probe = createSvg(1, 1, "probe");
  const legendH = drawLegend(probe.append("g"), legend, size + 160);
  const width = size + 180;
  const svg = createSvg(width, size + legendH + 10, data.title);
  const cx = width / 2;
  const cy = size / 2;
  const r = size / 2 - 50;
  const n = data.axes.length;
  const angle = (i: number) => (Math.PI * 2 * i) / n - Math.PI / 2;
  const g = svg.append("g");
  for (const level of [0.25, 0.5, 0.75, 1]) {
    g.append("polygon")
      .attr("points", data.axes.map((_a, i) => [cx + Math.cos(angle(i)) * r * level, cy + Math.sin(angle(i)) * r * level].join(",")).join(" "))
      .attr("fill", "none")
      .attr("stroke", "#0002");
  }
  data.axes.forEach((a, i) => {
    g.append("line").attr("x1", cx).attr("y1", cy).attr("x2", cx + Math.cos(angle(i)) * r).attr("y2", cy + Math.sin(angle(i)) * r).attr("stroke", "#0003");
    const lx = cx + Math.cos(angle(i)) * (r + 18);
    const ly = cy + Math.sin(angle(i)) * (r + 18);
    g.append("text")
      .attr("x", lx)
      .attr("y", ly)
      .attr("dy", "0.35em")
      .attr("text-anchor", Math.abs(Math.cos(angle(i))) < 0.2 ? "middle" : Math.cos(angle(i)) > 0 ? "start" : "end")
      .text(clip(a.label, 24));
  });
  const scale = (a: RadarData["axes"][number], v: number) => ((v - a.min) / (a.max - a.min || 1)) * r;
  for (const s of data.series) {
    const pts = data.axes.map((a, i) => {
      const v = s.values[a.id] ?? a.min;
      return [cx + Math.cos(angle(i)) * scale(a, v), cy + Math.sin(angle(i)) * scale(a, v)];
    });
    g.append("polygon")
      .attr("class", "radar-series")
      .attr("points", pts.map((p) => p.join(",")).join(" "))
      .attr("fill", s.colour)
      .attr("fill-opacity", 0.12)
      .attr("stroke", s.colour)
      .attr("stroke-width", 2);
    g.selectAll(null)
      .data(data.axes)
      .join("circle")
      .attr("cx", (_a, i) => pts[i][0])
      .attr("cy", (_a, i) => pts[i][1])
      .attr("r", 3.5)
      .attr("fill", s.colour)
      .attr("data-tip", (a) => `${s.label}\n${a.label}: mean ${s.values[a.id]?.toFixed(2) ?? "–"}`);
  }
  drawLegend(svg.append("g").attr("transform", `translate(10,${size})`), legend, width - 20);
  return svg.node()!;
}

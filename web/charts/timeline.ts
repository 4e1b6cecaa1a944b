import * as d3 from "d3";
import { createSvg, drawLegend, fitText, widest } from "../lib/svg.js";

export interface TimelineData {
  title: string;
  lanes: { key: string; colour: string }[];
  turns: { id: string; lane: number; x0: number; x1: number; type: string; tip: string }[];
  /** "seconds" when turns have times, else x is the turn index. */
  axis: "seconds" | "turn";
}

const fmtTime = (s: number) => {
  const m = Math.floor(s / 60);
  const sec = Math.floor(s % 60);
  return `${m}:${String(sec).padStart(2, "0")}`;
};

/**
 * Turns on a time axis, one lane per speaker. Messages are full-height bars; backchannels are
 * short, low bars; interruptions get a black triangle above; system events are grey diamonds.
 * Every turn mark has data-turn (its id) so the view can sync it with the transcript.
 */
export function timelineChart(data: TimelineData, options: { width?: number } = {}): SVGSVGElement {
  const width = options.width ?? 1000;
  const laneH = 30;
  // Lane labels are bold (about 8% wider): leave room for the widest, up to 220 px, so none is cut.
  const laneLabels = data.lanes.map((l) => fitText(l.key, 220));
  const margin = { top: 12, right: 20, bottom: 36, left: Math.ceil(Math.max(80, widest(laneLabels) * 1.08 + 16)) };
  const legendItems = [
    { label: "message", colour: "#777" },
    { label: "backchannel (short bar)", colour: "#bbb" },
    { label: "interruption ▼", colour: "#000" },
    { label: "system ◆", colour: "#999" },
  ];
  const plotH = data.lanes.length * laneH;
  const height = margin.top + plotH + margin.bottom + 24;
  const svg = createSvg(width, height, data.title);
  const lo = d3.min(data.turns, (t) => t.x0) ?? 0;
  const hi = d3.max(data.turns, (t) => t.x1) ?? 1;
  const x = d3
    .scaleLinear()
    .domain([lo, hi > lo ? hi : lo + 1])
    .range([margin.left, width - margin.right]);
  svg
    .selectAll("rect.lane")
    .data(data.lanes)
    .join("rect")
    .attr("class", "lane")
    .attr("x", margin.left)
    .attr("width", width - margin.left - margin.right)
    .attr("y", (_l, i) => margin.top + i * laneH)
    .attr("height", laneH)
    .attr("fill", (_l, i) => (i % 2 ? "#fafafa" : "#f3f3f3"));
  svg
    .selectAll("text.lane-label")
    .data(data.lanes)
    .join("text")
    .attr("class", "lane-label")
    .attr("x", margin.left - 8)
    .attr("y", (_l, i) => margin.top + i * laneH + laneH / 2)
    .attr("dy", "0.35em")
    .attr("text-anchor", "end")
    .attr("fill", (l) => l.colour)
    .attr("font-weight", 600)
    .attr("data-tip", (l) => l.key)
    .text((_l, i) => laneLabels[i]);
  const mark = svg
    .selectAll("g.turn")
    .data(data.turns)
    .join("g")
    .attr("class", "turn")
    .attr("data-turn", (t) => t.id)
    .attr("data-type", (t) => t.type)
    .attr("data-tip", (t) => t.tip)
    .attr("cursor", "pointer");
  const laneY = (t: TimelineData["turns"][number]) => margin.top + t.lane * laneH;
  mark
    .filter((t) => t.type !== "system")
    .append("rect")
    .attr("x", (t) => x(t.x0))
    .attr("width", (t) => Math.max(2, x(t.x1) - x(t.x0) - 0.5))
    .attr("y", (t) => laneY(t) + (t.type === "backchannel" ? laneH * 0.55 : 4))
    .attr("height", (t) => (t.type === "backchannel" ? laneH * 0.3 : laneH - 8))
    .attr("rx", 1.5)
    .attr("fill", (t) => data.lanes[t.lane]?.colour ?? "#999")
    .attr("fill-opacity", (t) => (t.type === "backchannel" ? 0.6 : 0.9));
  mark
    .filter((t) => t.type === "interruption")
    .append("path")
    .attr("d", (t) => `M${x(t.x0) - 4},${laneY(t) - 1}h8l-4,6z`)
    .attr("fill", "#000");
  mark
    .filter((t) => t.type === "system")
    .append("path")
    .attr("d", (t) => `M${x(t.x0)},${laneY(t) + 6}l7,9l-7,9l-7,-9z`)
    .attr("fill", "#999");
  svg
    .append("g")
    .attr("transform", `translate(0,${margin.top + plotH})`)
    .call(
      data.axis === "seconds"
        ? d3
            .axisBottom(x)
            .ticks(8)
            .tickFormat((v) => fmtTime(Number(v)))
        : d3.axisBottom(x).ticks(8),
    );
  svg
    .append("text")
    .attr("x", width - margin.right)
    .attr("y", margin.top + plotH + 32)
    .attr("text-anchor", "end")
    .attr("fill", "#444")
    .text(data.axis === "seconds" ? "time (m:ss from session start)" : "turn number (no times in this session)");
  drawLegend(svg.append("g").attr("transform", `translate(${margin.left},${margin.top + plotH + 40})`), legendItems, width - margin.left);
  svg.attr("height", height + 12).attr("viewBox", `0 0 ${width} ${height + 12}`);
  svg.select("rect.bg").attr("height", height + 12);
  return svg.node()!;
}

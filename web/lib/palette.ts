import type { CodebookInfo, ReportBundle } from "../../src/report/types.js";
import { CODE_COLOURS, CONDITION_COLOURS, NEUTRAL, SPEAKER_COLOURS, coloursByName } from "../../src/report/palette.js";
import { positions } from "./indexing.js";

/**
 * The dashboard's colours: one palette per meaning (src/report/palette.ts, shared with the
 * report's figures), keyed by an item's place in the study-wide list of its kind, so the same
 * code, condition or speaker has the same colour in every chart. Speakers past the eighth also
 * get a dash pattern and marker shape.
 */
/** Speakers at or past this position get a dash pattern and a marker shape as well as a colour. */
export const SOLID_SPEAKERS = 8;
/** Marker shapes (d3 symbol names) and dash patterns for the speakers past {@link SOLID_SPEAKERS}. */
export const MARKERS = ["square", "triangle", "diamond", "cross", "star", "wye"] as const;
export type Marker = "circle" | (typeof MARKERS)[number];
const DASHES = ["6 3", "2 2", "8 3 2 3"];

/** How one series is drawn: its colour and, for speakers past the eighth, a dash pattern and marker shape. */
export interface SeriesStyle {
  colour: string;
  /** SVG stroke-dasharray for lines and outlines; undefined = solid. */
  dash?: string;
  /** Marker shape for points and bars; undefined = plain (circle for points, none on bars). */
  marker?: Marker;
}

/**
 * The style of the speaker at position `i` of the study's speaker list. Every pair of the first
 * 20 speakers differs in colour; past 20 colours repeat, but with another marker (and dash), so
 * no two of the first 60 speakers look alike.
 */
export function speakerStyleAt(i: number): SeriesStyle {
  const colour = SPEAKER_COLOURS[i % SPEAKER_COLOURS.length];
  if (i < SOLID_SPEAKERS) return { colour };
  // Speakers i and i + 20 share a colour; k differs by 20, and 20 is no multiple of 6, so their
  // markers differ (every look is unique up to 60 speakers).
  const k = i - SOLID_SPEAKERS;
  return { colour, dash: DASHES[k % DASHES.length], marker: MARKERS[k % MARKERS.length] };
}

/**
 * A second channel for lines that share one colour (sessions of one condition) or have no palette
 * colour of their own (groups of codes): the first solid and plain, the others dashed with a
 * marker. Every look of the first 6 differs.
 */
export function lineLookAt(i: number): { dash?: string; marker?: Marker } {
  if (i === 0) return {};
  return { dash: DASHES[(i - 1) % DASHES.length], marker: MARKERS[(i - 1) % MARKERS.length] };
}

export function codeColour(codebook: CodebookInfo | undefined): (code: string) => string {
  const colour = coloursByName(
    (codebook?.categories ?? []).map((c) => c.id),
    CODE_COLOURS,
  );
  return (code) => (code === "none" || code === "(none)" ? NEUTRAL : colour(code));
}

export function speakerStyle(bundle: ReportBundle): (key: string) => SeriesStyle {
  const at = positions(bundle.speakers.map((s) => s.key));
  return (key) => {
    const i = at(key);
    return i < 0 ? { colour: NEUTRAL } : speakerStyleAt(i);
  };
}

export function conditionColour(bundle: ReportBundle): (condition: string) => string {
  return coloursByName(bundle.conditions, CONDITION_COLOURS);
}

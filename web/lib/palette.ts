import type { CodebookInfo, ReportBundle } from "../../src/report/types.js";
import { positions } from "./indexing.js";

/**
 * Colour-blind-safe palettes. Codes use Paul Tol's "muted" scheme extended with Okabe-Ito
 * colours (12 distinguishable hues); speakers use Okabe-Ito, then more (see SPEAKER_COLOURS). A fallback/"none" code is grey.
 * Colours are assigned by position in the codebook / study speaker list, so the same code and
 * the same speaker have the same colour in every chart. Positions are indexed once per palette
 * (charts ask for a colour per mark).
 */
export const CODE_COLOURS = [
  "#332288",
  "#88CCEE",
  "#44AA99",
  "#117733",
  "#999933",
  "#DDCC77",
  "#CC6677",
  "#882255",
  "#AA4499",
  "#E69F00",
  "#0072B2",
  "#D55E00",
];
/**
 * 20 distinct speaker colours: Okabe-Ito's 8 first (the most distinguishable, also for
 * colour-blind readers), then Paul Tol's "muted" hues and three dark ones. Colours past the
 * eighth are harder to tell apart, so those speakers also get a second visual channel (see
 * {@link speakerStyle}).
 */
export const SPEAKER_COLOURS = [
  "#0072B2",
  "#E69F00",
  "#009E73",
  "#D55E00",
  "#56B4E9",
  "#CC79A7",
  "#F0E442",
  "#000000",
  "#332288",
  "#88CCEE",
  "#44AA99",
  "#117733",
  "#999933",
  "#DDCC77",
  "#CC6677",
  "#882255",
  "#AA4499",
  "#661100",
  "#6699CC",
  "#997700",
];
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
export const NEUTRAL = "#BBBBBB";

export function codeColour(codebook: CodebookInfo | undefined): (code: string) => string {
  const at = positions((codebook?.categories ?? []).map((c) => c.id));
  return (code) => {
    if (code === "none" || code === "(none)") return NEUTRAL;
    const i = at(code);
    return i < 0 ? NEUTRAL : CODE_COLOURS[i % CODE_COLOURS.length];
  };
}

export function speakerStyle(bundle: ReportBundle): (key: string) => SeriesStyle {
  const at = positions(bundle.speakers.map((s) => s.key));
  return (key) => {
    const i = at(key);
    return i < 0 ? { colour: NEUTRAL } : speakerStyleAt(i);
  };
}

export function conditionColour(bundle: ReportBundle): (condition: string) => string {
  // Conditions use Okabe-Ito from the sky blue on, so they differ from the first speakers' hues.
  const list = ["#56B4E9", "#E69F00", "#009E73", "#CC79A7", "#0072B2", "#D55E00", "#F0E442", "#000000"];
  const at = positions(bundle.conditions);
  return (c) => {
    const i = at(c);
    return i < 0 ? NEUTRAL : list[i % list.length];
  };
}

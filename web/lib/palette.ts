import type { CodebookInfo, ReportBundle } from "../../src/report/types.js";
import { positions } from "./indexing.js";

/**
 * Colour-blind-safe palettes. Codes use Paul Tol's "muted" scheme extended with Okabe-Ito
 * colours (12 distinguishable hues); speakers use Okabe-Ito. A fallback/"none" code is grey.
 * Colours are assigned by position in the codebook / study speaker list, so the same code and
 * the same speaker have the same colour in every chart. Positions are indexed once per palette
 * (charts ask for a colour per mark).
 */
export const CODE_COLOURS = [
  "#332288", "#88CCEE", "#44AA99", "#117733", "#999933", "#DDCC77",
  "#CC6677", "#882255", "#AA4499", "#E69F00", "#0072B2", "#D55E00",
];
export const SPEAKER_COLOURS = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7", "#F0E442", "#000000"];
export const NEUTRAL = "#BBBBBB";

export function codeColour(codebook: CodebookInfo | undefined): (code: string) => string {
  const at = positions((codebook?.categories ?? []).map((c) => c.id));
  return (code) => {
    if (code === "none" || code === "(none)") return NEUTRAL;
    const i = at(code);
    return i < 0 ? NEUTRAL : CODE_COLOURS[i % CODE_COLOURS.length];
  };
}

export function speakerColour(bundle: ReportBundle): (key: string) => string {
  const at = positions(bundle.speakers.map((s) => s.key));
  return (key) => {
    const i = at(key);
    return i < 0 ? NEUTRAL : SPEAKER_COLOURS[i % SPEAKER_COLOURS.length];
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

import { lab } from "d3";

/**
 * One palette per meaning, shared by the dashboard and the report's figures, so a colour says
 * what kind of thing it marks: a condition, a code or a speaker (and grey for measures, which
 * are no study item). No colour is in two palettes, and every colour of one palette is far (in
 * CIELAB) from every colour of the others; test/web/palette.test.ts measures both.
 *
 * Colours are assigned by an item's place in the study-wide list of its kind (conditions with the
 * control first, then in order met; codes in codebook order; speakers in study order), never by
 * its place in one chart: the same item has the same colour in every view, export and figure.
 */

/**
 * Okabe & Ito (2008), without black: the most distinguishable hues, for the few conditions of a
 * design. Blue first and orange second: the control and the first other condition also differ in
 * lightness (CIE L* 45 and 71), so a two-condition figure reads in greyscale without patterns;
 * the pale yellow last, as it is the hardest to see on white.
 */
export const CONDITION_COLOURS = ["#0072B2", "#E69F00", "#009E73", "#56B4E9", "#D55E00", "#CC79A7", "#F0E442"];

/** Paul Tol's "muted" scheme (9 colours, colour-blind safe), then three of his dark tones for codebooks of up to 12 codes (Bales' IPA). */
export const CODE_COLOURS = [
  "#CC6677",
  "#332288",
  "#DDCC77",
  "#117733",
  "#88CCEE",
  "#882255",
  "#44AA99",
  "#999933",
  "#AA4499",
  "#663333",
  "#222255",
  "#225555",
];

/**
 * 20 speaker colours from Paul Tol's schemes (bright, vibrant, light, dark, discrete rainbow),
 * each picked in turn as the one farthest from the condition and code colours and from the
 * speakers before it (the first eight also under simulated deutan and protan vision). Past the
 * eighth, speakers also get a dash pattern and a marker shape (web/lib/palette.ts), since no 20
 * hues stay apart from 19 others.
 */
export const SPEAKER_COLOURS = [
  "#004488",
  "#EE8866",
  "#CC3311",
  "#BBCC33",
  "#225522",
  "#228833",
  "#44BB99",
  "#6699CC",
  "#EE3377",
  "#72190E",
  "#90C987",
  "#666633",
  "#FFAABB",
  "#997700",
  "#CCBB44",
  "#4EB265",
  "#994455",
  "#BA8DB4",
  "#EE6677",
  "#A5170E",
];

/** Statistics drawn side by side (kappa, alpha, agreement; precision, recall, F1): greys, told apart in greyscale too. */
export const MEASURE_COLOURS = ["#1A1A1A", "#6E6E6E", "#A8A8A8"];

/** "Not coded", an unknown item: a light grey no palette uses. */
export const NEUTRAL = "#BBBBBB";

/**
 * The colour of the item at `position` in its kind's list. Past the palette's end the colours
 * come round again at a lighter tint (mixed with white), then a darker shade, so the first
 * 3 x palette-length items of a kind all differ.
 */
export function colourAt(palette: readonly string[], position: number): string {
  if (position < 0) return NEUTRAL;
  const base = palette[position % palette.length];
  const round = Math.floor(position / palette.length) % 3;
  return round === 0 ? base : mix(base, round === 1 ? "#FFFFFF" : "#000000", 0.45);
}

/** `a` moved `t` of the way to `b`, as #RRGGBB. */
function mix(a: string, b: string, t: number): string {
  const channel = (hex: string, i: number) => parseInt(hex.slice(1 + 2 * i, 3 + 2 * i), 16);
  const out = [0, 1, 2].map((i) => Math.round(channel(a, i) + (channel(b, i) - channel(a, i)) * t));
  return `#${out.map((v) => v.toString(16).padStart(2, "0")).join("")}`.toUpperCase();
}

/** A colour per item of `list` (keyed by name, by its place in the list); anything not in it is neutral. */
export function coloursByName(list: readonly string[], palette: readonly string[]): (name: string) => string {
  const at = new Map<string, number>();
  for (const [i, name] of list.entries()) if (!at.has(name)) at.set(name, i);
  return (name) => colourAt(palette, at.get(name) ?? -1);
}

/**
 * The least difference in CIE L* (0 black to 100 white) at which two colours printed in greyscale
 * still read as different at a glance (the measures' greys differ by 23 or more). A palette of
 * eight or more colours cannot keep it between every pair (L* spans 100), so a figure that draws
 * such colours side by side needs a second channel: a pattern, a dash, a marker or a direct label.
 */
export const GREY_STEP = 15;

/** Every pair of different colours among `colours` whose lightness differs by less than GREY_STEP: they look alike in greyscale. */
export function greyscaleClashes(colours: readonly string[]): [string, string][] {
  const distinct = [...new Set(colours.map((c) => c.toUpperCase()))];
  const lightness = distinct.map((c) => lab(c).l);
  const out: [string, string][] = [];
  for (const [i, a] of distinct.entries())
    for (const [j, b] of distinct.entries()) if (j > i && Math.abs(lightness[i] - lightness[j]) < GREY_STEP) out.push([a, b]);
  return out;
}

/**
 * The text of one WebVTT/SRT cue: voice spans split into speakers, caption markup removed and
 * HTML character references decoded. What is removed is only presentation (italics, colours,
 * positions, karaoke timestamps); the caller keeps the original cue text in turn metadata
 * whenever the text changed, so nothing is lost.
 *
 * Markup removed:
 *  - WebVTT tags: <c.class>, <i>, <b>, <u>, <lang en>, <ruby>, <rt>, inline <00:00:01.000>;
 *  - HTML that SRT writers put in cues: <font color=…>, <span>, <s>, <em>, <strong>, <sub>, <sup>
 *    (<br> becomes a line break);
 *  - ASS/SSA override blocks that SRT files carry: {\an8}, {\i1}, {\pos(10,20)}.
 * Only those tag names are touched: "I <3 you" and "a < b > c" stay as written.
 */

/** Latin-1 named references, in code point order from U+00A0. */
const LATIN1 =
  "nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn sup2 sup3 acute micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest " +
  "Agrave Aacute Acirc Atilde Auml Aring AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig " +
  "agrave aacute acirc atilde auml aring aelig ccedil egrave eacute ecirc euml igrave iacute icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide oslash ugrave uacute ucirc uuml yacute thorn yuml";

const NAMED = new Map<string, string>([
  ["amp", "&"],
  ["lt", "<"],
  ["gt", ">"],
  ["quot", '"'],
  ["apos", "'"],
  ["lrm", "\u200E"],
  ["rlm", "\u200F"],
  ["zwj", "\u200D"],
  ["zwnj", "\u200C"],
  ["ensp", "\u2002"],
  ["emsp", "\u2003"],
  ["thinsp", "\u2009"],
  ["ndash", "\u2013"],
  ["mdash", "\u2014"],
  ["lsquo", "\u2018"],
  ["rsquo", "\u2019"],
  ["sbquo", "\u201A"],
  ["ldquo", "\u201C"],
  ["rdquo", "\u201D"],
  ["bdquo", "\u201E"],
  ["bull", "\u2022"],
  ["hellip", "\u2026"],
  ["euro", "\u20AC"],
  ["trade", "\u2122"],
  ...LATIN1.split(" ").map((name, i) => [name, String.fromCodePoint(0xa0 + i)] as [string, string]),
]);

/** Decode HTML character references (`&amp;`, `&nbsp;`, `&#39;`, `&#x2019;`); unknown ones stay as written. */
export function decodeEntities(text: string): string {
  return text.replace(
    /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([A-Za-z][A-Za-z0-9]{1,7}));/g,
    (whole, dec: string | undefined, hex: string | undefined, name: string | undefined) => {
      if (name !== undefined) return NAMED.get(name) ?? whole;
      const cp = dec !== undefined ? Number(dec) : parseInt(hex!, 16);
      // NUL, surrogates and out-of-range values are not characters: keep the reference.
      return cp === 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ? whole : String.fromCodePoint(cp);
    },
  );
}

const TAGS = /<\/?(?:c|i|b|u|s|lang|ruby|rt|font|span|em|strong|sub|sup)(?:[.\s][^>]*)?\/?>|<\d{1,2}:\d{2}(?::\d{2})?[.,]\d{3}>|\{\\[^{}]*\}/gi;

/** Caption markup removed and references decoded (voice tags are handled by splitVoices). */
export function plainCueText(text: string): string {
  return decodeEntities(text.replace(/<br\s*\/?>/gi, "\n").replace(TAGS, ""));
}

/** A voice tag anywhere in a cue: `<v Alice>`, `<v.loud Bob Smith>`, and its closing `</v>`. */
const VOICE = /<v(?:\.[^\s>]*)?(?:[ \t]+([^>]*))?>/g;

/** One stretch of a cue spoken by one voice (or by nobody named: `speaker` undefined). */
export interface VoiceSegment {
  speaker?: string;
  /** The stretch with its voice tags and `</v>` removed, other markup still in. */
  text: string;
  /** The stretch as written, its opening voice tag included. */
  source: string;
}

/**
 * Split a cue's text at its voice tags. Text before the first tag has no voice; text after a
 * `</v>` keeps the voice of the span it closes until the next tag (one cue is one speaker's
 * caption, and Teams writes "<v Ann>Yes</v> and no" for Ann's words). An unclosed `<v>` runs to
 * the end of the cue, as in the WebVTT spec.
 */
export function splitVoices(text: string): VoiceSegment[] {
  const segments: VoiceSegment[] = [];
  let speaker: string | undefined;
  let tagAt = 0;
  let from = 0;
  const push = (end: number): void => {
    const part = text.slice(from, end).replace(/<\/v>/g, "");
    // Blank stretches (the space between two voices) are no segment.
    if (part.trim() !== "") segments.push({ ...(speaker !== undefined ? { speaker } : {}), text: part, source: text.slice(tagAt, end) });
  };
  for (const m of text.matchAll(VOICE)) {
    push(m.index);
    // An empty voice tag (`<v >`) names nobody.
    speaker = m[1]?.trim() || undefined;
    tagAt = m.index;
    from = m.index + m[0].length;
  }
  push(text.length);
  // A cue with no words is still a cue (an empty turn keeps its timing).
  if (segments.length === 0) segments.push({ ...(speaker !== undefined ? { speaker } : {}), text: "", source: text });
  return segments;
}

import { SessionBuilder, sessionIdFromPath } from "../builder.js";
import { ImportError, type Importer, type ImportResult } from "../types.js";
import { allText, attrsOf, childrenOf, elements, numberAttr, tagOf, textOf, xmlRoot, type XmlNode } from "./xml.js";

const EXPECTED =
  'an EXMARaLDA basic transcription: <basic-transcription><head><speakertable><speaker id="SPK0">…</speaker></speakertable></head><basic-body><common-timeline><tli id="T0" time="0.0"/>…</common-timeline><tier speaker="SPK0" type="t"><event start="T0" end="T1">text</event></tier></basic-body></basic-transcription>';

/** One event of a tier, with its place on the timeline and its source line. */
interface TimedEvent {
  start: number;
  end: number;
  text: string;
  line: number | undefined;
  /** The event's child elements (`<ud-information>`): metadata, not words. */
  info: unknown[];
}

/**
 * EXMARaLDA basic transcriptions (.exb, partitur editor). The speaker table names speakers (their
 * abbreviation; the rest of each entry is participant metadata). Only tiers of type "t"
 * (transcription) hold words: their events, in timeline order, become turns of the tier's speaker.
 * EXMARaLDA cuts an utterance into events at every timeline point another speaker needs, so
 * events of one tier that follow each other without a gap (one ends where the next starts) are
 * joined, verbatim (the spaces are in the event texts), into one turn. Turns of all speakers are
 * ordered by where they start on the timeline (overlaps kept). Times come from the timeline; a
 * point without a time leaves that edge untimed (its id is kept in turn metadata), never guessed.
 * Annotation ("a") and description ("d") tiers are not speech: their events are kept in session
 * metadata `otherTiers`, with a warning. The head (meta information, speaker table) goes to
 * session metadata `head`.
 */
export const exmaraldaImporter: Importer = {
  name: "exmaralda",
  description: "EXMARaLDA basic transcription .exb (speaker table, timeline, transcription tiers)",
  extensions: [".exb"],
  input: "file",
  detect(path, head) {
    const exb = /\.exb$/i.test(path);
    if (/<basic-transcription[\s>]/.test(head)) return exb ? 1 : 0.95;
    return exb ? 0.5 : 0;
  },
  async parse(input, options) {
    const file = input.path;
    const text = await input.readText();
    const root = xmlRoot(text, file, "basic-transcription", EXPECTED);
    const result: ImportResult = { sessions: [], codes: [], warnings: [] };
    const headNode = elements(childrenOf(root), "head")[0];
    const body = elements(childrenOf(root), "basic-body")[0];
    if (!body) throw new ImportError({ file, line: 1, problem: "no <basic-body> element", expected: EXPECTED });

    const builder = new SessionBuilder(sessionIdFromPath(file), { source: { file, format: "exmaralda" } }, options.agents);
    const speakers = new Map<string, XmlNode>();
    const headInfo: Record<string, unknown> = {};
    for (const part of headNode ? childrenOf(headNode) : []) {
      if (tagOf(part) === "speakertable") for (const s of elements(childrenOf(part), "speaker")) speakers.set(attrsOf(s).id ?? "", s);
      if (textOf(part) === undefined) headInfo[tagOf(part)] = describe(part);
    }
    if (Object.keys(headInfo).length > 0) builder.metadata.head = headInfo;

    const timeline = elements(childrenOf(body), "common-timeline")[0];
    const points = timeline ? elements(childrenOf(timeline), "tli") : [];
    const position = new Map<string, number>();
    points.forEach((p, i) => position.set(attrsOf(p).id ?? "", i));
    const time = (index: number) => numberAttr(attrsOf(points[index]!), "time");

    const eventLines = tagLines(text, "event");
    let eventNumber = 0;
    const turns: { order: number; tier: number; speaker: string; events: TimedEvent[] }[] = [];
    const otherTiers: Record<string, unknown>[] = [];
    elements(childrenOf(body), "tier").forEach((tier, tierIndex) => {
      const attrs = attrsOf(tier);
      const events: TimedEvent[] = [];
      for (const event of elements(childrenOf(tier), "event")) {
        const line = eventLines[eventNumber++];
        const e = attrsOf(event);
        const at = (field: "start" | "end"): number => {
          const index = position.get(e[field] ?? "");
          if (index === undefined) {
            const problem = `event ${field}="${e[field] ?? ""}" in tier "${attrs.id ?? tierIndex}" names no <tli> of the common timeline`;
            throw new ImportError({ file, line, problem, expected: EXPECTED });
          }
          return index;
        };
        const start = at("start");
        const end = at("end");
        if (end <= start) {
          const problem = `event in tier "${attrs.id ?? tierIndex}" ends (${e.end}) at or before its start (${e.start}) on the timeline`;
          throw new ImportError({ file, line, problem, expected: "an end point after the start point" });
        }
        const info = childrenOf(event)
          .filter((n) => textOf(n) === undefined)
          .map((n) => ({ [tagOf(n)]: describe(n) }));
        events.push({ start, end, text: eventText(event), line, info });
      }
      if (attrs.type !== "t") {
        const kept = events.map((ev) => ({
          start: attrsOf(points[ev.start]!).id,
          end: attrsOf(points[ev.end]!).id,
          text: ev.text,
          ...(ev.info.length ? { info: ev.info } : {}),
        }));
        otherTiers.push({ ...attrs, events: kept });
        return;
      }
      const speaker = speakerId(builder, speakers, attrs, tierIndex);
      events.sort((a, b) => a.start - b.start);
      let open: TimedEvent[] | undefined;
      for (const event of events) {
        if (open && open[open.length - 1]!.end === event.start) open.push(event);
        else turns.push({ order: event.start, tier: tierIndex, speaker, events: (open = [event]) });
      }
    });
    turns.sort((a, b) => a.order - b.order || a.tier - b.tier);
    for (const turn of turns) {
      const words = turn.events.map((e) => e.text).join("");
      if (words.trim() === "") continue;
      const first = turn.events[0]!;
      const last = turn.events[turn.events.length - 1]!;
      const metadata: Record<string, unknown> = { startPoint: attrsOf(points[first.start]!).id, endPoint: attrsOf(points[last.end]!).id };
      if (first.line !== undefined) metadata.line = first.line;
      const info = turn.events.flatMap((e) => e.info);
      if (info.length > 0) metadata.eventInfo = info;
      builder.turn(turn.speaker, { text: words.trim(), start: time(first.start), end: time(last.end), metadata });
    }
    if (otherTiers.length > 0) {
      builder.metadata.otherTiers = otherTiers;
      const names = otherTiers.map((t) => `"${String(t["display-name"] ?? t.id ?? "")}" (type ${String(t.type ?? "?")})`);
      result.warnings.push(`${file}: tier(s) ${names.join(", ")} are annotations or descriptions, not speech: kept in session metadata otherTiers`);
    }
    if (builder.turnCount === 0) throw new ImportError({ file, problem: 'no transcription tier (type="t") holds any words', expected: EXPECTED });
    result.sessions.push(builder.build());
    return result;
  },
};

/**
 * The participant of a transcription tier: its speaker's abbreviation, else the speaker id, else
 * the tier's name. The rest of the speaker table (sex, languages, user-defined fields) is in
 * session metadata `head.speakertable`.
 */
function speakerId(builder: SessionBuilder, speakers: Map<string, XmlNode>, tier: Record<string, string>, index: number): string {
  const entry = tier.speaker !== undefined ? speakers.get(tier.speaker) : undefined;
  const abbreviation = entry ? allText(elements(childrenOf(entry), "abbreviation")[0] ?? {}).trim() : "";
  const name = abbreviation || tier.speaker || tier["display-name"] || tier.id || `tier ${index + 1}`;
  return builder.participant(name);
}

/** An event's words: its text nodes in order (a `<ud-information>` inside is metadata, kept in `info`). */
function eventText(event: XmlNode): string {
  return childrenOf(event)
    .map((n) => textOf(n) ?? "")
    .join("");
}

/** An element as plain data: attributes, child elements by tag (repeated tags as lists) and text. */
function describe(node: XmlNode): unknown {
  const out: Record<string, unknown> = { ...attrsOf(node) };
  const text = childrenOf(node)
    .map((n) => textOf(n) ?? "")
    .join("")
    .trim();
  const children = childrenOf(node).filter((n) => textOf(n) === undefined);
  if (children.length === 0 && Object.keys(out).length === 0) return text;
  if (text !== "") out.text = text;
  for (const child of children) {
    const tag = tagOf(child);
    const value = describe(child);
    out[tag] = tag in out ? [...(Array.isArray(out[tag]) ? (out[tag] as unknown[]) : [out[tag]]), value] : value;
  }
  return out;
}

/**
 * The 1-based source line of every `<tag` element, in document order (the parser keeps no
 * positions): comments, CDATA and processing instructions are blanked first so the n-th match is
 * the n-th element.
 */
function tagLines(text: string, tag: string): number[] {
  const masked = text.replace(/<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>|<\?[\s\S]*?\?>/g, (m) => m.replace(/[^\n]/g, " "));
  const lines: number[] = [];
  let line = 1;
  let from = 0;
  for (const match of masked.matchAll(new RegExp(`<${tag}(?=[\\s/>])`, "g"))) {
    for (let i = from; i < match.index; i++) if (masked.charCodeAt(i) === 10) line++;
    from = match.index;
    lines.push(line);
  }
  return lines;
}

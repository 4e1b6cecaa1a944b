import { type Importer, type ImportResult } from "../types.js";
import { SessionBuilder } from "./json-session.js";
import { baseName } from "./json-shape.js";
import { allText, attrsOf, childrenOf, elements, numberAttr, xmlRoot, tagOf, textOf, type XmlNode } from "./xml.js";

const EXPECTED =
  'a Transcriber file: <Trans><Speakers><Speaker id="spk1" name="…"/></Speakers><Episode><Section><Turn speaker="spk1" startTime="0" endTime="…">text</Turn></Section></Episode></Trans>';

/**
 * One run of one speaker's words within a Turn. A Turn of one speaker is one segment; a Turn with
 * `speaker="spk1 spk2"` has one per `<Who nb>`, in document order, so words said at different
 * `<Sync>` times stay apart instead of being joined into one turn per speaker.
 */
interface Segment {
  /** 0-based index into the Turn's speakers, or -1 when `who` names none of them. */
  speaker: number;
  text: string;
  /** `<Sync time>` marks: the time (seconds) and the character offset in `text` where it falls. */
  syncs: { time: number; at: number }[];
  /** `<Event>`, `<Comment>`, `<Background>` marks with their attributes and offset in `text`. */
  marks: Record<string, unknown>[];
  /** The `nb` of a `<Who>` that names no speaker of the Turn: these words' speaker is unknown. */
  who?: string;
  /** The last `<Sync>` before its first word, and the first `<Sync>` after its last word (seconds). */
  start?: number;
  end?: number;
}

/** Source key of the participant for words under a `<Who nb>` beyond the Turn's speakers (no XML id has a space). */
const UNKNOWN_SPEAKER = "(unknown speaker)";

/**
 * Transcriber (.trs) XML: `<Speakers>` name the speakers; each `<Turn speaker startTime endTime>`
 * of each `<Section>` is a turn. Inside a turn, `<Sync time>` marks time points (kept in turn
 * metadata `syncs` with their character offset in the text), `<Who nb>` switches between the
 * speakers of an overlapping turn (`speaker="spk1 spk2"`: one turn per `<Who>` run, each flagged
 * `overlap` and timed by the Syncs around it), and `<Event>`, `<Comment>`, `<Background>` are kept in turn metadata `marks`. Words
 * after a `<Who nb>` that names none of the Turn's speakers go to "(unknown speaker)", the nb
 * kept in turn metadata `who`, with a warning naming the line.
 * Text is XML mixed content: whitespace runs (line breaks between Syncs) become one space. A
 * turn with no speaker attribute that holds words gets the participant "(no speaker)"; a turn
 * without words (silence, music) keeps only its marks, in session metadata `nonSpeech`.
 */
export const transcriberImporter: Importer = {
  name: "transcriber",
  description: "Transcriber .trs XML (Speakers, Section, Turn, Sync, Who, Event)",
  extensions: [".trs"],
  input: "file",
  detect(path, head) {
    const trs = /\.trs$/i.test(path);
    if (/<Trans[\s>]/.test(head) && /<(Episode|Speakers|Turn)[\s>]/.test(head)) return trs ? 1 : 0.9;
    return trs ? 0.3 : 0;
  },
  async parse(input, options) {
    const file = input.path;
    const root = xmlRoot(await input.readText(), file, "Trans", EXPECTED);
    const trans = childrenOf(root);
    const result: ImportResult = { sessions: [], codes: [], warnings: [] };
    const stem = baseName(file).replace(/\.[^.]*$/, "");
    const metadata: Record<string, unknown> = { source: { file, format: "transcriber" }, transcriber: attrsOf(root) };
    const builder = new SessionBuilder(stem, undefined, metadata);
    const agents = new Set(options.agents ?? []);
    const speakers = new Map<string, Record<string, string>>();
    for (const list of elements(trans, "Speakers")) for (const s of elements(childrenOf(list), "Speaker")) speakers.set(attrsOf(s).id ?? "", attrsOf(s));
    const topics = new Map<string, string>();
    for (const list of elements(trans, "Topics")) for (const t of elements(childrenOf(list), "Topic")) topics.set(attrsOf(t).id ?? "", attrsOf(t).desc ?? "");
    const participant = (id: string): string => {
      const attrs = speakers.get(id);
      if (!attrs && id !== "") result.warnings.push(`${file}: turn speaker "${id}" is not declared in <Speakers>; named by its id`);
      const name = id === "" ? "(no speaker)" : (attrs?.name ?? id);
      const { id: _id, name: _name, ...rest } = attrs ?? {};
      return builder.participant(id, {
        name,
        kind: agents.has(name) || agents.has(id) ? "ai" : "human",
        ...(Object.keys(rest).length ? { metadata: rest } : {}),
      });
    };
    const nonSpeech: Record<string, unknown>[] = [];
    const badWho: { node: XmlNode; nb: string | undefined; speakers: string[]; start: number | undefined }[] = [];
    for (const episode of elements(trans, "Episode")) {
      for (const section of elements(childrenOf(episode), "Section")) {
        const sectionAttrs = attrsOf(section);
        const sectionInfo = { ...sectionAttrs, ...(sectionAttrs.topic && topics.has(sectionAttrs.topic) ? { topicDesc: topics.get(sectionAttrs.topic) } : {}) };
        for (const turn of elements(childrenOf(section), "Turn")) {
          const attrs = attrsOf(turn);
          const ids = (attrs.speaker ?? "").split(/\s+/).filter(Boolean);
          const start = numberAttr(attrs, "startTime");
          const segments = readSegments(childrenOf(turn), Math.max(1, ids.length), (node, nb) => badWho.push({ node, nb, speakers: ids, start }));
          const end = numberAttr(attrs, "endTime");
          const spoken = segments.filter((s) => s.text !== "");
          // Split Turns time each run by its Syncs; a Turn of one run keeps the Turn's own times.
          const split = ids.length > 1 || spoken.length > 1;
          for (const segment of segments) {
            if (segment.text === "") {
              if (segment.marks.length > 0) nonSpeech.push({ start, end, marks: segment.marks });
              continue;
            }
            const { speaker: _s, startTime: _a, endTime: _b, ...turnAttrs } = attrs;
            const meta: Record<string, unknown> = { ...turnAttrs, section: sectionInfo };
            if (segment.syncs.length > 0) meta.syncs = segment.syncs;
            if (segment.marks.length > 0) meta.marks = segment.marks;
            if (segment.who !== undefined) meta.who = segment.who;
            if (ids.length > 1 || new Set(spoken.map((s) => s.who ?? s.speaker)).size > 1) meta.overlap = true;
            const speaker =
              segment.who === undefined
                ? participant(ids[segment.speaker] ?? "")
                : builder.participant(UNKNOWN_SPEAKER, { name: UNKNOWN_SPEAKER, kind: "human" });
            const times = split ? { start: segment.start ?? start, end: segment.end ?? end } : { start, end };
            builder.turn({ speaker, text: segment.text, ...times, metadata: meta });
          }
        }
      }
    }
    if (badWho.length > 0) {
      const lines = whoLines(root, await input.readText());
      for (const b of badWho) {
        const at = lines.get(b.node);
        const who = b.nb === undefined ? "<Who> without nb" : `<Who nb="${b.nb}">`;
        const list = b.speakers.length === 0 ? "no speaker attribute" : `speaker="${b.speakers.join(" ")}" (${b.speakers.length})`;
        result.warnings.push(
          `${file}${at ? `:${at}` : ""}: ${who} in the turn at ${b.start ?? "?"} s, which has ${list}; its words are kept under "${UNKNOWN_SPEAKER}"`,
        );
      }
    }
    if (nonSpeech.length > 0) metadata.nonSpeech = nonSpeech;
    if (builder.turnCount === 0) result.warnings.push(`${file}: no turn with words; imported an empty session`);
    result.sessions.push(builder.build());
    return result;
  },
};

/**
 * Walk a Turn's mixed content into segments: words before any `<Who>` are the first speaker's, and
 * each `<Who nb>` opens a new run. `nb` is 1-based into the Turn's speaker list (trans-14.dtd); an
 * nb outside it (or missing where the Turn has several speakers) names nobody, so its words get
 * `who` set, and `badWho` is told. A `<Sync>` ends every run that has words so far (overlapping
 * speakers share a Sync interval) unless that run goes on after it.
 */
function readSegments(nodes: readonly XmlNode[], count: number, badWho: (node: XmlNode, nb: string | undefined) => void): Segment[] {
  const segments: Segment[] = [];
  let lastSync: number | undefined;
  // Syncs not yet followed by words: they belong to whichever run speaks next.
  let pending: number[] = [];
  const open = (speaker: number, who?: string): Segment => {
    const segment: Segment = { speaker, text: "", syncs: [], marks: [], ...(who !== undefined ? { who } : {}) };
    segments.push(segment);
    return segment;
  };
  let current = open(0);
  const flushSyncs = () => {
    for (const time of pending) current.syncs.push({ time, at: current.text.trimEnd().length });
    pending = [];
  };
  const append = (raw: string) => {
    const words = raw.replace(/\s+/g, " ");
    if (words.trim() === "") return;
    if (current.text === "") current.start = lastSync;
    // The run goes on past a Sync that had ended it.
    delete current.end;
    flushSyncs();
    // One space between chunks, none at the edges.
    current.text = (
      current.text === "" ? words.trimStart() : current.text.endsWith(" ") || words.startsWith(" ") ? current.text + words : `${current.text} ${words}`
    ).replace(/ {2,}/g, " ");
  };
  for (const node of nodes) {
    const text = textOf(node);
    if (text !== undefined) {
      append(text);
      continue;
    }
    const tag = tagOf(node);
    const attrs = attrsOf(node);
    if (tag === "Sync") {
      const time = numberAttr(attrs, "time");
      if (time === undefined) continue;
      lastSync = time;
      pending.push(time);
      for (const s of segments) if (s.text !== "" && s.end === undefined) s.end = time;
    } else if (tag === "Who") {
      const nb = attrs.nb === undefined && count === 1 ? 1 : numberAttr(attrs, "nb");
      // A <Who> naming whoever is already speaking goes on with that run.
      if (nb !== undefined && Number.isInteger(nb) && nb >= 1 && nb <= count) {
        if (nb - 1 !== current.speaker || current.who !== undefined) current = open(nb - 1);
      } else {
        const key = attrs.nb?.trim();
        badWho(node, key);
        const who = key ?? "(no nb)";
        if (current.who !== who) current = open(-1, who);
      }
    } else {
      current.marks.push({ tag, ...attrs, at: current.text.trimEnd().length });
      // An unknown element's own words are still words.
      append(allText(node));
    }
  }
  // A Sync after the last words is still a time mark of the turn.
  flushSyncs();
  for (const s of segments) s.text = s.text.trimEnd();
  return segments;
}

/**
 * The 1-based source line of every `<Who>` element, for warnings: the parser keeps no positions,
 * so the n-th `<Who` tag of the text (comments, CDATA and processing instructions blanked out,
 * newlines kept) is the n-th Who element of the tree in document order. Empty if they disagree.
 */
function whoLines(root: XmlNode, text: string): Map<XmlNode, number> {
  const nodes: XmlNode[] = [];
  const walk = (node: XmlNode): void => {
    if (tagOf(node) === "Who") nodes.push(node);
    childrenOf(node).forEach(walk);
  };
  walk(root);
  const masked = text.replace(/<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>|<\?[\s\S]*?\?>/g, (m) => m.replace(/[^\n]/g, " "));
  const offsets = [...masked.matchAll(/<Who(?=[\s/>])/g)].map((m) => m.index);
  const lines = new Map<XmlNode, number>();
  if (offsets.length !== nodes.length) return lines;
  nodes.forEach((node, i) => lines.set(node, text.slice(0, offsets[i]).split("\n").length));
  return lines;
}

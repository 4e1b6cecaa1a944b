import type { Importer, ImportResult } from "../types.js";
import { parseJson } from "./json-parse.js";
import { SessionBuilder } from "./json-session.js";
import { baseName, childPath, expectArray, expectObject, isObject, optionalNumber, rest, shapeError } from "./json-shape.js";

const EXPECTED = 'a Rev transcript {"monologues": [{"speaker": 0, "speaker_name": …, "elements": [{"type": "text", "value": …, "ts": …, "end_ts": …}]}]}';

/**
 * Rev JSON transcripts (Rev.ai and rev.com): `{monologues: [{speaker, speaker_name?, elements}]}`.
 * One turn per monologue; its text is the elements' values joined exactly as given (Rev puts
 * the spaces in `punct` elements); `<inaudible>`-style `unknown` elements stay in the text.
 * Start and end come from the first and last timed element (seconds). Each element, with its
 * timing and confidence, is kept in turn metadata `elements`. Speakers: `speaker_name`, else a
 * name from a top-level `speakers` list, else "Speaker N".
 */
export const revJsonImporter: Importer = {
  name: "rev-json",
  description: "Rev JSON transcripts: {monologues: [{speaker, elements: [{type, value, ts, end_ts}]}]}",
  extensions: [".json"],
  input: "file",
  detect(path, head) {
    if (!/"monologues"\s*:\s*\[/.test(head)) return 0;
    return /"elements"\s*:\s*\[/.test(head) || /"monologues"\s*:\s*\[\s*\]/.test(head) ? 0.95 : 0.6;
  },
  async parse(input) {
    const file = input.path;
    const root = expectObject(parseJson(await input.readText(), file), file, "$", EXPECTED);
    const monologues = expectArray(root.monologues, file, "$.monologues", EXPECTED);
    const names = new Map<string, string>();
    if (Array.isArray(root.speakers))
      for (const s of root.speakers) if (isObject(s) && typeof s.name === "string" && isSpeakerKey(s.id)) names.set(String(s.id), s.name);
    const metadata: Record<string, unknown> = { source: { file, format: "rev-json" } };
    const extra = rest(root, ["monologues"]);
    if (extra) metadata.extra = extra;
    const builder = new SessionBuilder(baseName(file).replace(/\.[^.]*$/, ""), undefined, metadata);
    monologues.forEach((raw, i) => {
      const path = childPath("$.monologues", i);
      const mono = expectObject(raw, file, path, 'a monologue {"speaker": …, "elements": […]}');
      if (!(mono.speaker === undefined || mono.speaker === null || isSpeakerKey(mono.speaker))) {
        throw shapeError(file, childPath(path, "speaker"), "the speaker's number (or a string)", mono.speaker);
      }
      const speakerKey = mono.speaker === undefined || mono.speaker === null ? "" : String(mono.speaker);
      const name =
        typeof mono.speaker_name === "string" && mono.speaker_name.trim() !== ""
          ? mono.speaker_name
          : (names.get(speakerKey) ?? (speakerKey === "" ? "Unknown speaker" : `Speaker ${speakerKey}`));
      const speaker = builder.participant(`${speakerKey}\u0000${name}`, { name, kind: "human" });
      const elements = expectArray(mono.elements, file, childPath(path, "elements"), "an array of elements");
      let text = "";
      let start: number | undefined;
      let end: number | undefined;
      elements.forEach((e, j) => {
        const at = childPath(childPath(path, "elements"), j);
        const el = expectObject(e, file, at, 'an element {"type": "text" | "punct" | "unknown", "value": …}');
        if (typeof el.value !== "string") throw shapeError(file, childPath(at, "value"), "the element's words as a string", el.value);
        text += el.value;
        const ts = optionalNumber(el, "ts", file, at);
        const endTs = optionalNumber(el, "end_ts", file, at);
        if (ts !== undefined) start ??= ts;
        if (endTs !== undefined) end = endTs;
      });
      const meta: Record<string, unknown> = { elements, ...rest(mono, ["speaker", "speaker_name", "elements"]) };
      builder.turn({ speaker, text, start, end, metadata: meta });
    });
    const result: ImportResult = { sessions: [builder.build()], codes: [], warnings: [] };
    if (monologues.length === 0) result.warnings.push(`${file}: no monologues; imported an empty session`);
    return result;
  },
};

/** A speaker id as Rev writes it (a number; a string is taken too). */
const isSpeakerKey = (value: unknown): value is number | string => typeof value === "number" || typeof value === "string";

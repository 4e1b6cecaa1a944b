import { slugify } from "../../transcript/ids.js";
import { ImportError, type Importer, type ImportResult } from "../types.js";
import { parseJson } from "./json-parse.js";
import { SessionBuilder } from "./json-session.js";
import { baseName, childPath, expectObject, idText, isObject, optionalNumber, rest, shapeError, type JsonObject } from "./json-shape.js";

const EXPECTED =
  'AMI/ICSI-style meeting segments: rows {"meeting_id": …, "speaker_id": …, "begin_time": …, "end_time": …, "text": …} as JSONL, a JSON array, {"meeting_id": …, "segments": […]}, or a QMSum meeting {"meeting_transcripts": [{"speaker": …, "content": …}]}';
/** Where an object holds its rows: `segments`, or QMSum's `meeting_transcripts`. */
const ROW_LISTS = ["segments", "meeting_transcripts"] as const;

/**
 * Meeting corpora distributed as segment rows (AMI and ICSI as the Hugging Face datasets and
 * many conversions write them): one row per utterance, `{meeting_id, speaker_id, begin_time,
 * end_time, text, …}` (also `speaker`, `start`/`end`), as JSONL, a JSON array, or
 * `{meeting_id, segments: [...]}`, or QMSum's `{topic_list, general_query_list, specific_query_list,
 * meeting_transcripts: [{speaker, content}]}` (no times; its topics and queries stay in session
 * metadata). One session per meeting, turns in time order (ties: file
 * order); every other field (audio_id, microphone_id, word timings) stays in turn metadata.
 * A JSONL line that is not JSON is skipped with a warning naming the line.
 */
export const meetingSegmentsImporter: Importer = {
  name: "meeting-segments",
  description: "AMI/ICSI-style meeting segment rows {meeting_id, speaker_id, begin_time, end_time, text}",
  extensions: [".jsonl", ".json"],
  input: "file",
  detect(_path, head) {
    if (/^\s*\{/.test(head) && (/"meeting_transcripts"\s*:\s*\[/.test(head) || /^\s*\{\s*"topic_list"\s*:/.test(head))) return 0.85;
    const rows = /"meeting_id"\s*:/.test(head) && /"(speaker_id|speaker)"\s*:/.test(head) && /"(begin_time|start)"\s*:/.test(head) && /"text"\s*:/.test(head);
    return rows ? 0.9 : 0;
  },
  async parse(input) {
    const file = input.path;
    const text = await input.readText();
    const result: ImportResult = { sessions: [], codes: [], warnings: [] };
    const rows: { row: JsonObject; path: string; meeting?: string }[] = [];
    let extra: JsonObject | undefined;
    // A JSON array, or one object holding `segments`; anything else is read as JSONL rows.
    let root: unknown;
    if (text.trimStart().startsWith("[")) root = parseJson(text, file);
    else {
      try {
        root = JSON.parse(text);
      } catch {
        root = undefined;
      }
      if (!(isObject(root) && ROW_LISTS.some((k) => Array.isArray((root as JsonObject)[k])))) root = undefined;
    }
    if (root !== undefined) {
      if (Array.isArray(root)) root.forEach((r, i) => rows.push({ row: expectObject(r, file, childPath("$", i), EXPECTED), path: childPath("$", i) }));
      else {
        const obj = root as JsonObject;
        const meeting = obj.meeting_id === undefined ? undefined : idText(obj.meeting_id, file, "$.meeting_id");
        const key = ROW_LISTS.find((k) => Array.isArray(obj[k]))!;
        extra = rest(obj, ["meeting_id", key]);
        (obj[key] as unknown[]).forEach((r, i) => {
          const row = expectObject(r, file, childPath(`$.${key}`, i), EXPECTED);
          // QMSum calls a row's words `content`.
          rows.push({
            row: row.text === undefined && "content" in row ? { ...rest(row, ["content"]), text: row.content } : row,
            path: childPath(`$.${key}`, i),
            meeting,
          });
        });
      }
    } else {
      text.split(/\r\n|\n|\r/).forEach((line, i) => {
        if (line.trim() === "") return;
        try {
          rows.push({ row: expectObject(parseJson(line, file, i), file, `(line ${i + 1}) $`, EXPECTED), path: `(line ${i + 1}) $` });
        } catch (error) {
          if (!(error instanceof ImportError)) throw error;
          result.warnings.push(`${error.message}; line ${i + 1} skipped`);
        }
      });
    }
    if (rows.length === 0 && result.warnings.length > 0) throw new ImportError({ file, line: 1, problem: "no line is a segment", expected: EXPECTED });
    if (rows.length === 0) result.warnings.push(`${file}: no segments; nothing imported`);
    const meetings = new Map<string, { row: JsonObject; path: string; start?: number; order: number }[]>();
    rows.forEach(({ row, path, meeting }, order) => {
      const id =
        meeting ??
        (row.meeting_id === undefined || row.meeting_id === null
          ? baseName(file).replace(/\.[^.]*$/, "")
          : idText(row.meeting_id, file, childPath(path, "meeting_id")));
      if (typeof row.text !== "string") throw shapeError(file, childPath(path, "text"), "the segment's words as a string", row.text);
      const start = optionalNumber(row, "begin_time", file, path) ?? optionalNumber(row, "start", file, path);
      const list = meetings.get(id) ?? [];
      list.push({ row, path, start, order });
      meetings.set(id, list);
    });
    for (const [id, segments] of meetings) {
      segments.sort((a, b) => (a.start ?? Infinity) - (b.start ?? Infinity) || a.order - b.order);
      const builder = new SessionBuilder(slugify(id), undefined, { source: { file, format: "meeting-segments" }, meeting_id: id, ...(extra ? { extra } : {}) });
      for (const { row, path, start } of segments) {
        const who = row.speaker_id ?? row.speaker;
        const name =
          who === undefined || who === null
            ? "Unknown speaker"
            : idText(who, file, childPath(path, row.speaker_id === undefined || row.speaker_id === null ? "speaker" : "speaker_id"));
        const speaker = builder.participant(name, { name, kind: "human" });
        const end = optionalNumber(row, "end_time", file, path) ?? optionalNumber(row, "end", file, path);
        builder.turn({
          speaker,
          text: row.text as string,
          start,
          end,
          metadata: rest(row, ["meeting_id", "speaker_id", "speaker", "begin_time", "start", "end_time", "end", "text"]),
        });
      }
      result.sessions.push(builder.build());
    }
    return result;
  },
};

import { childPath, expectObject, shapeError, type JsonObject } from "./json-shape.js";

/** A message body split into its words (turn text) and everything else (kept as metadata). */
export interface MessageBody {
  /** Text parts joined by "\n", verbatim; "" for null content or content without text. */
  text: string;
  /** Non-text parts (images, audio, files, tool results…) exactly as the source has them. */
  parts?: JsonObject[];
  /** True when the message is a refusal (OpenAI `refusal` part or field). */
  refusal?: boolean;
}

const TEXT_KEYS = ["text", "refusal"] as const;
/** Responses API text parts: `{type: "output_text" | "input_text", text}`. */
const TEXT_TYPES = new Set(["text", "output_text", "input_text"]);

/**
 * Read an OpenAI-style `content`: a string, null, or an array of content parts
 * (`{type: "text", text}`, `{type: "image_url", image_url: {url}}`, `{type: "refusal", refusal}`,
 * Anthropic-style `{type: "text", text}` and Responses API `output_text`/`input_text` too). Bare strings inside the array count as text.
 * Text parts are joined with "\n" (they are consecutive paragraphs of one message); all other
 * parts are kept whole in `parts` so nothing is lost.
 */
export function readContent(value: unknown, file: string, path: string): MessageBody {
  if (value === null || value === undefined) return { text: "" };
  if (typeof value === "string") return { text: value };
  // Helpdesk and messaging exports wrap one message's words as `{"text": …}`: one part.
  if (!Array.isArray(value) && typeof value === "object" && "text" in value) return readContent([value], file, path);
  if (!Array.isArray(value)) throw shapeError(file, path, "a string, null, or an array of content parts", value);
  const texts: string[] = [];
  const parts: JsonObject[] = [];
  let refusal = false;
  value.forEach((part, i) => {
    const partPath = childPath(path, i);
    if (typeof part === "string") {
      texts.push(part);
      return;
    }
    const obj = expectObject(part, file, partPath, 'a content part such as {"type": "text", "text": "…"}');
    const type = obj.type;
    if (type !== undefined && typeof type !== "string") throw shapeError(file, childPath(partPath, "type"), "a string part type", type);
    for (const key of TEXT_KEYS) {
      if (type === key || (key === "text" && (type === undefined ? "text" in obj : TEXT_TYPES.has(type)))) {
        const text = obj[key];
        if (typeof text !== "string") throw shapeError(file, childPath(partPath, key), `a string in a "${key}" part`, text);
        texts.push(text);
        if (key === "refusal") refusal = true;
        // Extra fields of a text part (annotations, cache_control) are kept too.
        const extra = Object.keys(obj).filter((k) => k !== "type" && k !== key);
        if (extra.length > 0) parts.push(obj);
        return;
      }
    }
    parts.push(obj);
  });
  const body: MessageBody = { text: texts.join("\n") };
  if (parts.length > 0) body.parts = parts;
  if (refusal) body.refusal = true;
  return body;
}

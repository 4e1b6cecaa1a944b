import type { ResponseFormat } from "../../llm/types.js";
import type { Codebook } from "../codebook/schema.js";

/**
 * The JSON schema sent as structured output (OpenAI strict mode: every property required,
 * no additional properties). Enums carry the codebook's ids and point ranges, so a compliant
 * endpoint cannot answer outside the codebook; we still validate every reply ourselves.
 */
function itemSchema(codebook: Codebook, turnIds?: readonly string[]): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  if (turnIds) {
    properties.turn = { type: "string", enum: [...turnIds] };
    required.push("turn");
  }
  if (codebook.kind === "nominal") {
    const ids = codebook.categories.map((c) => c.id);
    if (codebook.multiple) properties.codes = { type: "array", items: { type: "string", enum: ids } };
    else properties.code = { type: "string", enum: ids };
    required.push(codebook.multiple ? "codes" : "code");
  } else {
    const scoreProps: Record<string, unknown> = {};
    for (const s of codebook.scales) {
      scoreProps[s.id] = { type: "integer", enum: Array.from({ length: s.points }, (_, i) => i + 1) };
    }
    for (const c of codebook.counts) scoreProps[c.id] = { type: "integer" };
    properties.scores = { type: "object", properties: scoreProps, required: Object.keys(scoreProps), additionalProperties: false };
    required.push("scores");
  }
  properties.rationale = { type: "string" };
  required.push("rationale");
  return { type: "object", properties, required, additionalProperties: false };
}

/** response_format for one target turn, or (with `turnIds`) for a batch of them. */
export function codingResponseFormat(codebook: Codebook, turnIds?: readonly string[]): ResponseFormat {
  if (!turnIds) return { type: "json_schema", name: "turn_code", schema: itemSchema(codebook) };
  return {
    type: "json_schema",
    name: "turn_codes",
    schema: {
      type: "object",
      properties: { items: { type: "array", items: itemSchema(codebook, turnIds) } },
      required: ["items"],
      additionalProperties: false,
    },
  };
}

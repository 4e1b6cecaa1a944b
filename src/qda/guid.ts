import { createHash } from "node:crypto";

/**
 * REFI-QDA names every object by a GUID. Colloquy derives them from stable keys ("code:bales-ipa:agrees",
 * "source:session-1") so exporting the same study twice gives every source, code and coding the
 * same GUID, and a re-imported project's objects are recognised. Formatted as an RFC 4122 name-based UUID (version 5 bits set).
 */
export function stableGuid(key: string): string {
  const hex = createHash("sha1").update(`colloquy-qda\u0000${key}`).digest("hex").slice(0, 32).split("");
  hex[12] = "5";
  hex[16] = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  const h = hex.join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** GUIDs compare without braces and case ("{ABC…}" in some tools, "abc…" in others). */
export function normaliseGuid(guid: string): string {
  return guid.replace(/^\{|\}$/g, "").toLowerCase();
}

import { hash } from "node:crypto";

/**
 * REFI-QDA names every object by a GUID. Colloquy derives them from stable keys ("code:bales-ipa:agrees",
 * "source:session-1") so exporting the same study twice gives every source, code and coding the
 * same GUID, and a re-imported project's objects are recognised. Formatted as an RFC 4122 name-based UUID (version 5 bits set).
 */
export function stableGuid(key: string): string {
  // The one-shot hash: an export makes one GUID per coding, and createHash cost 4x more a call.
  const h = hash("sha1", `colloquy-qda\u0000${key}`, "hex");
  const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** GUIDs compare without braces and case ("{ABC…}" in some tools, "abc…" in others). */
export function normaliseGuid(guid: string): string {
  return guid.replace(/^\{|\}$/g, "").toLowerCase();
}

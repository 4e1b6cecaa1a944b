import { createHash } from "node:crypto";

/**
 * JSON with object keys sorted at every depth, so equal values always serialise to equal
 * strings (cache keys, fingerprints). `undefined` members are dropped as JSON.stringify does.
 */
export function stableStringify(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === "object" && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value as Record<string, unknown>).sort()) {
      const member = (value as Record<string, unknown>)[key];
      if (member !== undefined) out[key] = sortKeys(member);
    }
    return out;
  }
  return value;
}

/** Hex sha256 of a string or buffer. */
export function sha256(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** Hex sha256 of the stable serialisation of a value. */
export function hashValue(value: unknown): string {
  return sha256(stableStringify(value));
}

const FNV_OFFSET = 0x811c9dc5;
export const FNV_PRIME = 0x01000193;

/** FNV-1a, 32-bit (signed), continued from `h`: fast, well spread for short strings, stable everywhere. */
export function fnv1a(text: string, h = FNV_OFFSET): number {
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV_PRIME);
  return h;
}

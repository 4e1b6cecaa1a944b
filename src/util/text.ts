/** `text` cut to its first `max` characters, with "…" when something was cut (for previews in messages and tables). */
export function shorten(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

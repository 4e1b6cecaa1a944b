/**
 * Which ELAN tiers hold speech. An .eaf file mixes speakers' utterance tiers with tiers that are
 * not speech (markers, notes, gestures), tiers holding only utterance ids whose words are in a
 * dependent tier, and second segmentations of the same speech (sentences and intonation units).
 * Each would otherwise become a speaker. The rules, in order, each naming why a tier is skipped:
 * 1. a top-level tier whose id or linguistic type says note, comment, marker or gesture is not speech;
 * 2. when some top-level tiers name a PARTICIPANT, those that name none are not speech;
 * 3. a tier whose every value is one short token holding a digit (`01`, `u12`) holds ids: its
 *    time-aligned dependent tier with the most words is the speech instead;
 * 4. two tiers of one participant (or both without) and one linguistic type, each covering at
 *    least 80% of the other's annotations in time, segment the same speech: the finer one is kept.
 * A file where the rules leave nothing keeps every top-level tier.
 */

export interface ElanAnnotation {
  id: string;
  tier: string;
  value: string;
  start?: number;
  end?: number;
  /** REF_ANNOTATION: the annotation it depends on. */
  ref?: string;
  extra: Record<string, string>;
}

export interface SkippedTier {
  tier: string;
  reason: string;
}

const NOT_SPEECH = /note|comment|marker|gesture/i;
const ID_VALUE = /^\s*[\w.@#-]{0,15}\d[\w.@#-]{0,15}\s*$/;
/** Share of one tier's annotations another must cover to count as the same speech. */
const SAME_SPEECH = 0.8;

export function speechTiers(
  tiers: readonly Record<string, string>[],
  annotations: readonly ElanAnnotation[],
  types: ReadonlyMap<string, Record<string, string>>,
): { speech: Set<string>; skipped: SkippedTier[] } {
  const byTier = new Map<string, ElanAnnotation[]>();
  for (const a of annotations) byTier.set(a.tier, [...(byTier.get(a.tier) ?? []), a]);
  const valuesOf = (tier: string) => (byTier.get(tier) ?? []).map((a) => a.value).filter((v) => v.trim() !== "");
  const top = tiers.filter((t) => !t.PARENT_REF);
  const skipped: SkippedTier[] = [];
  const skip = (tier: string, reason: string) => skipped.push({ tier, reason });

  let speech = top.filter((t) => {
    if (!NOT_SPEECH.test(t.TIER_ID ?? "") && !NOT_SPEECH.test(t.LINGUISTIC_TYPE_REF ?? "")) return true;
    skip(t.TIER_ID ?? "", "a note, marker or gesture tier");
    return false;
  });
  if (speech.some((t) => t.PARTICIPANT?.trim())) {
    speech = speech.filter((t) => {
      if (t.PARTICIPANT?.trim()) return true;
      skip(t.TIER_ID ?? "", "names no PARTICIPANT while other tiers do");
      return false;
    });
  }
  speech = speech.map((t) => {
    const values = valuesOf(t.TIER_ID ?? "");
    if (values.length === 0 || !values.every((v) => ID_VALUE.test(v))) return t;
    const words = (tier: string) => valuesOf(tier).reduce((n, v) => n + v.trim().split(/\s+/).length, 0);
    const children = tiers
      .filter((c) => c.PARENT_REF === t.TIER_ID && types.get(c.LINGUISTIC_TYPE_REF ?? "")?.TIME_ALIGNABLE !== "false")
      .sort((a, b) => words(b.TIER_ID ?? "") - words(a.TIER_ID ?? ""));
    if (!children[0] || words(children[0].TIER_ID ?? "") <= values.length) return t;
    skip(t.TIER_ID ?? "", `holds utterance ids; the words are in its dependent tier ${JSON.stringify(children[0].TIER_ID)}`);
    return children[0];
  });
  const kept = speech.filter((t, i) => {
    const twin = speech.find((o, j) => j !== i && sameSpeaker(t, o) && covers(byTier.get(t.TIER_ID ?? ""), byTier.get(o.TIER_ID ?? "")));
    if (!twin) return true;
    const mine = valuesOf(t.TIER_ID ?? "").length;
    const theirs = valuesOf(twin.TIER_ID ?? "").length;
    // The finer segmentation stays; of two equal ones, the first.
    if (mine > theirs || (mine === theirs && speech.indexOf(twin) > i)) return true;
    skip(t.TIER_ID ?? "", `segments the same speech as ${JSON.stringify(twin.TIER_ID)} more coarsely`);
    return false;
  });
  if (kept.length === 0) return { speech: new Set(top.map((t) => t.TIER_ID ?? "")), skipped: [] };
  return { speech: new Set(kept.map((t) => t.TIER_ID ?? "")), skipped };
}

function sameSpeaker(a: Record<string, string>, b: Record<string, string>): boolean {
  return (a.PARTICIPANT?.trim() ?? "") === (b.PARTICIPANT?.trim() ?? "") && a.LINGUISTIC_TYPE_REF === b.LINGUISTIC_TYPE_REF;
}

/** Each tier's timed annotations fall (by midpoint) inside the other's, for at least SAME_SPEECH of them. */
function covers(a: readonly ElanAnnotation[] | undefined, b: readonly ElanAnnotation[] | undefined): boolean {
  return coveredShare(a ?? [], b ?? []) >= SAME_SPEECH && coveredShare(b ?? [], a ?? []) >= SAME_SPEECH;
}

function coveredShare(inner: readonly ElanAnnotation[], outer: readonly ElanAnnotation[]): number {
  const timed = inner.filter((a) => a.start !== undefined && a.end !== undefined);
  if (timed.length === 0) return 0;
  const spans = outer.filter((a) => a.start !== undefined && a.end !== undefined);
  const inside = timed.filter((a) => {
    const mid = (a.start! + a.end!) / 2;
    return spans.some((s) => s.start! <= mid && mid <= s.end!);
  });
  return inside.length / timed.length;
}

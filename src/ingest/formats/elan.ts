import { type Importer, type ImportResult } from "../types.js";
import { speechTiers, type ElanAnnotation as Annotation } from "./elan-tiers.js";
import { SessionBuilder } from "./json-session.js";
import { baseName } from "./json-shape.js";
import { allText, attrsOf, childrenOf, elements, numberAttr, xmlRoot, tagOf, type XmlNode } from "./xml.js";
import { listEntry } from "../../util/named-entries.js";

const EXPECTED =
  'an ELAN file: <ANNOTATION_DOCUMENT><TIME_ORDER><TIME_SLOT TIME_SLOT_ID="ts1" TIME_VALUE="0"/>…</TIME_ORDER><TIER TIER_ID="…"><ANNOTATION><ALIGNABLE_ANNOTATION TIME_SLOT_REF1="ts1" TIME_SLOT_REF2="ts2"><ANNOTATION_VALUE>…</ANNOTATION_VALUE>…';

/**
 * ELAN (.eaf) XML. Each top-level tier (no PARENT_REF) is one speaker's utterances: the
 * participant is the tier's PARTICIPANT attribute, or its TIER_ID. Each of its alignable
 * annotations is a turn, timed by its two time slots (milliseconds -> seconds); turns of all
 * speakers are merged in time order (ties: document order). Dependent tiers (translations,
 * glosses, words, whose annotations refer to a parent annotation or fall inside its time span)
 * are kept in the parent turn's metadata `tiers` as {tierId: [values]}; a dependent annotation
 * with no parent turn goes to session metadata `orphanAnnotations` so nothing is lost. Time
 * slots without TIME_VALUE (unaligned) leave the turn untimed; CVs and the header are metadata.
 */
export const elanImporter: Importer = {
  name: "elan",
  description: "ELAN .eaf XML (tiers per speaker, time slots, dependent tiers as metadata)",
  extensions: [".eaf"],
  input: "file",
  detect(path, head) {
    const eaf = /\.eaf$/i.test(path);
    if (/<ANNOTATION_DOCUMENT[\s>]/.test(head)) return eaf ? 1 : 0.9;
    return eaf ? 0.3 : 0;
  },
  async parse(input, options) {
    const file = input.path;
    const root = xmlRoot(await input.readText(), file, "ANNOTATION_DOCUMENT", EXPECTED);
    const doc = childrenOf(root);
    const result: ImportResult = { sessions: [], codes: [], warnings: [] };
    const slots = timeSlots(doc);
    const header = elements(doc, "HEADER")[0];
    const metadata: Record<string, unknown> = { source: { file, format: "elan" }, elan: attrsOf(root) };
    if (header) {
      // Header children may repeat (ELAN writes one <PROPERTY> per property): a name that occurs
      // once holds its element, one that repeats the list of them, so no property overwrites another.
      const children: Record<string, Record<string, string>[]> = {};
      for (const n of childrenOf(header)) if (tagOf(n) !== "#text") listEntry(children, tagOf(n)).push({ ...attrsOf(n), text: allText(n) });
      metadata.header = {
        ...attrsOf(header),
        ...Object.fromEntries(Object.entries(children).map(([name, list]) => [name, list.length === 1 ? list[0] : list])),
      };
    }
    const tiers = elements(doc, "TIER");
    const annotations: Annotation[] = [];
    const tierInfo = new Map<string, Record<string, string>>();
    for (const tier of tiers) {
      const attrs = attrsOf(tier);
      const tierId = attrs.TIER_ID ?? "";
      tierInfo.set(tierId, attrs);
      for (const wrapper of elements(childrenOf(tier), "ANNOTATION")) {
        for (const a of childrenOf(wrapper)) annotations.push(...readAnnotation(a, tierId, slots));
      }
    }
    const types = linguisticTypes(doc);
    const { speech, skipped } = speechTiers(tiers.map(attrsOf), annotations, types);
    const empty = annotations.filter((a) => speech.has(a.tier) && a.value.trim() === "");
    const top = annotations.filter((a) => speech.has(a.tier) && a.value.trim() !== "");
    const others = annotations.filter((a) => !speech.has(a.tier));
    // Document order breaks ties; untimed annotations keep their place after timed ones of their tier.
    const ordered = top
      .map((a, i) => ({ a, i }))
      .sort((x, y) => (x.a.start ?? Infinity) - (y.a.start ?? Infinity) || x.i - y.i)
      .map((x) => x.a);
    const byId = new Map(top.map((a) => [a.id, a]));
    const anyById = new Map(annotations.map((a) => [a.id, a]));
    const attached = new Map<string, Record<string, string[]>>();
    const orphans: Annotation[] = [];
    for (const d of others) {
      const parent = findParent(d, byId, anyById, top, tierInfo, speech);
      if (!parent) {
        orphans.push(d);
        continue;
      }
      const tiersOf = attached.get(parent.id) ?? {};
      listEntry(tiersOf, d.tier).push(d.value);
      attached.set(parent.id, tiersOf);
    }
    if (skipped.length > 0) {
      metadata.skippedTiers = skipped;
      result.warnings.push(
        `${file}: read speech from tier(s) ${[...speech].map((t) => JSON.stringify(t)).join(", ")}; skipped ${skipped.map((t) => `${JSON.stringify(t.tier)} (${t.reason})`).join(", ")}; their annotations are kept in session metadata orphanAnnotations`,
      );
    }
    if (empty.length > 0) result.warnings.push(`${file}: ${empty.length} empty annotation(s) on speech tiers are not turns`);
    const builder = new SessionBuilder(baseName(file).replace(/\.[^.]*$/, ""), undefined, metadata);
    const agents = new Set(options.agents ?? []);
    for (const a of ordered) {
      const info = tierInfo.get(a.tier) ?? {};
      const name = info.PARTICIPANT?.trim() || a.tier;
      const { TIER_ID: _t, PARTICIPANT: _p, ...tierRest } = info;
      const speaker = builder.participant(name, {
        name,
        kind: agents.has(name) || agents.has(a.tier) ? "ai" : "human",
        metadata: { tiers: [a.tier], ...tierRest },
      });
      const participant = builder.get(name)!;
      const known = participant.metadata?.tiers as string[] | undefined;
      if (known && !known.includes(a.tier)) known.push(a.tier);
      const meta: Record<string, unknown> = { tier: a.tier, annotationId: a.id, ...a.extra };
      const deps = attached.get(a.id);
      if (deps) meta.tiers = deps;
      builder.turn({ speaker, text: a.value, start: a.start, end: a.end, metadata: meta });
    }
    if (orphans.length > 0) {
      metadata.orphanAnnotations = orphans.map((o) => ({ tier: o.tier, id: o.id, value: o.value, start: o.start, end: o.end, ref: o.ref }));
      if (skipped.length === 0)
        result.warnings.push(`${file}: ${orphans.length} dependent annotation(s) belong to no utterance; kept in session metadata orphanAnnotations`);
    }
    if (builder.turnCount === 0) result.warnings.push(`${file}: no annotations on a top-level tier; imported an empty session`);
    result.sessions.push(builder.build());
    return result;
  },
};

/** TIME_SLOT_ID -> seconds (undefined for unaligned slots). */
/** LINGUISTIC_TYPE_ID -> its attributes (CONSTRAINTS, TIME_ALIGNABLE). */
function linguisticTypes(doc: readonly XmlNode[]): Map<string, Record<string, string>> {
  return new Map(elements(doc, "LINGUISTIC_TYPE").map((t) => [attrsOf(t).LINGUISTIC_TYPE_ID ?? "", attrsOf(t)]));
}

function timeSlots(doc: readonly XmlNode[]): Map<string, number | undefined> {
  const slots = new Map<string, number | undefined>();
  for (const order of elements(doc, "TIME_ORDER")) {
    for (const slot of elements(childrenOf(order), "TIME_SLOT")) {
      const attrs = attrsOf(slot);
      const ms = numberAttr(attrs, "TIME_VALUE");
      slots.set(attrs.TIME_SLOT_ID ?? "", ms === undefined ? undefined : ms / 1000);
    }
  }
  return slots;
}

function readAnnotation(node: XmlNode, tier: string, slots: Map<string, number | undefined>): Annotation[] {
  const tag = tagOf(node);
  if (tag !== "ALIGNABLE_ANNOTATION" && tag !== "REF_ANNOTATION") return [];
  const { ANNOTATION_ID, TIME_SLOT_REF1, TIME_SLOT_REF2, ANNOTATION_REF, ...extra } = attrsOf(node);
  const value = elements(childrenOf(node), "ANNOTATION_VALUE").map(allText).join("");
  const a: Annotation = { id: ANNOTATION_ID ?? "", tier, value, extra };
  if (TIME_SLOT_REF1 !== undefined) a.start = slots.get(TIME_SLOT_REF1);
  if (TIME_SLOT_REF2 !== undefined) a.end = slots.get(TIME_SLOT_REF2);
  if (ANNOTATION_REF !== undefined) a.ref = ANNOTATION_REF;
  return [a];
}

/** The top-level annotation a dependent one belongs to: through its ref chain, else by time within its tier's root. */
function findParent(
  d: Annotation,
  top: Map<string, Annotation>,
  byId: Map<string, Annotation>,
  topList: readonly Annotation[],
  tiers: Map<string, Record<string, string>>,
  speech: ReadonlySet<string>,
): Annotation | undefined {
  let current: Annotation | undefined = d;
  // The first timed annotation on the ref chain times a symbolic one (a translation of an id).
  let timed: Annotation | undefined;
  for (let hops = 0; current && hops < 50; hops++) {
    if (top.has(current.id)) return current;
    if (!timed && (current.start !== undefined || current.end !== undefined)) timed = current;
    if (current.ref) current = byId.get(current.ref);
    else break;
  }
  // Time subdivisions have no ref: the speech annotation of the same root tier whose span holds this one.
  const root = rootTier(d.tier, tiers);
  const at = timed?.start ?? timed?.end;
  if (!timed || at === undefined) return undefined;
  // An unaligned start (no TIME_VALUE) falls back to the end, which must then be within the span.
  return topList.find(
    (a) =>
      speech.has(a.tier) &&
      rootTier(a.tier, tiers) === root &&
      a.start !== undefined &&
      a.end !== undefined &&
      a.start <= at &&
      (timed.start !== undefined ? at < a.end : at <= a.end),
  );
}

function rootTier(tier: string, tiers: Map<string, Record<string, string>>): string {
  let root = tier;
  for (let hops = 0; tiers.get(root)?.PARENT_REF && hops < 50; hops++) root = tiers.get(root)!.PARENT_REF!;
  return root;
}

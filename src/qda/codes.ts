import type { Codebook, NominalCodebook, ScalesCodebook } from "../coding/codebook/schema.js";
import { slugify, uniqueId } from "../transcript/ids.js";
import { stableGuid } from "./guid.js";

/**
 * Codebooks as REFI-QDA code trees, and back. A codebook is one non-codable top code; its groups
 * (Bales' areas) are non-codable parents of their categories; a category in several groups (an
 * area and a problem) sits under its first and is listed in a Set per group. A scale is a
 * non-codable parent of one codable code per point. REFI-QDA has no place for Colloquy's ids, so
 * each code's description ends with a tag such as "[colloquy category agrees]": other tools show
 * it as text, and an import reads it back, so a round trip keeps ids.
 */

/** A code of the tree (REFI-QDA CodeType). */
export interface QdaCode {
  guid: string;
  name: string;
  isCodable: boolean;
  description?: string;
  children: QdaCode[];
}

/** A REFI-QDA Set: a named list of codes (one per codebook group). */
export interface QdaSet {
  guid: string;
  name: string;
  description?: string;
  members: string[];
}

/** What a code means to Colloquy, read from its tag. */
export type CodeMeaning =
  | { kind: "codebook"; id: string; version: string }
  | { kind: "group"; id: string; groupKind?: string }
  | { kind: "category"; id: string; fallback?: boolean }
  | { kind: "scale"; id: string }
  | { kind: "point"; scale: string; value: number };

const TAG = /(?:^|\n)\[colloquy (codebook|group|category|scale|point) ([^\]\n]+)\]\s*$/;

function tagged(text: string | undefined, tag: string): string {
  return text ? `${text}\n[colloquy ${tag}]` : `[colloquy ${tag}]`;
}

/** The description without its tag, and what the tag says. */
export function readTag(description: string | undefined): { text: string; meaning?: CodeMeaning } {
  if (!description) return { text: "" };
  const m = TAG.exec(description);
  if (!m) return { text: description };
  const text = description.slice(0, m.index).trim();
  const words = m[2].trim().split(/\s+/);
  switch (m[1]) {
    case "codebook":
      return { text, meaning: { kind: "codebook", id: words[0], version: words[2] ?? words[1] ?? "1" } };
    case "point":
      return Number.isInteger(Number(words[1])) ? { text, meaning: { kind: "point", scale: words[0], value: Number(words[1]) } } : { text };
    case "group":
      return { text, meaning: { kind: "group", id: words[0], ...(words.length > 1 ? { groupKind: words.slice(1).join(" ") } : {}) } };
    case "category":
      return { text, meaning: { kind: "category", id: words[0], ...(words[1] === "fallback" ? { fallback: true } : {}) } };
    default:
      return { text, meaning: { kind: "scale", id: words[0] } };
  }
}

const groupTag = (g: { id: string; kind?: string }) => `group ${g.id}${g.kind ? ` ${g.kind.replace(/[\]\n]/g, " ")}` : ""}`;

/** Stable GUIDs of one codebook's codes (the same in every export). */
export const codeGuid = {
  codebook: (id: string) => stableGuid(`codebook:${id}`),
  group: (codebook: string, id: string) => stableGuid(`group:${codebook}:${id}`),
  category: (codebook: string, id: string) => stableGuid(`category:${codebook}:${id}`),
  scale: (codebook: string, id: string) => stableGuid(`scale:${codebook}:${id}`),
  point: (codebook: string, scale: string, value: number) => stableGuid(`point:${codebook}:${scale}:${value}`),
  set: (codebook: string, id: string) => stableGuid(`set:${codebook}:${id}`),
};

/** The codebook's code tree and its group sets. */
export function codebookTree(codebook: Codebook): { root: QdaCode; sets: QdaSet[] } {
  const root: QdaCode = {
    guid: codeGuid.codebook(codebook.id),
    name: codebook.title,
    isCodable: false,
    description: tagged(codebook.description, `codebook ${codebook.id} version ${codebook.version}`),
    children: [],
  };
  if (codebook.kind === "scales") {
    for (const scale of codebook.scales) {
      root.children.push({
        guid: codeGuid.scale(codebook.id, scale.id),
        name: scale.label,
        isCodable: false,
        description: tagged(scale.definition, `scale ${scale.id}`),
        children: scale.anchors.map((anchor, i) => ({
          guid: codeGuid.point(codebook.id, scale.id, i + 1),
          name: `${scale.label} = ${i + 1}`,
          isCodable: true,
          description: tagged(anchor, `point ${scale.id} ${i + 1}`),
          children: [],
        })),
      });
    }
    return { root, sets: [] };
  }
  const groups = new Map(
    codebook.groups.map((g) => [
      g.id,
      { guid: codeGuid.group(codebook.id, g.id), name: g.label, isCodable: false, description: tagged(g.description, groupTag(g)), children: [] as QdaCode[] },
    ]),
  );
  // A group enters the tree where its first category is, so the tree keeps the categories' order.
  for (const category of codebook.categories) {
    const code: QdaCode = {
      guid: codeGuid.category(codebook.id, category.id),
      name: category.label,
      isCodable: true,
      description: tagged(category.definition, `category ${category.id}${category.id === codebook.fallback ? " fallback" : ""}`),
      children: [],
    };
    const first = category.groups?.[0];
    const parent = first !== undefined ? groups.get(first) : undefined;
    if (!parent) {
      root.children.push(code);
      continue;
    }
    if (parent.children.length === 0) root.children.push(parent);
    parent.children.push(code);
  }
  // Every group is also a Set: membership may overlap (a Bales category has an area and a problem).
  const sets = codebook.groups.map((g) => ({
    guid: codeGuid.set(codebook.id, g.id),
    name: `${codebook.title}: ${g.label}`,
    description: tagged(g.description, groupTag(g)),
    members: codebook.categories.filter((c) => c.groups?.includes(g.id)).map((c) => codeGuid.category(codebook.id, c.id)),
  }));
  return { root, sets };
}

/** Where one code's codings go: a category or a scale point of a codebook. */
export type CodeTarget = { codebook: string; category: string } | { codebook: string; scale: string; value: number };

/** Codebooks rebuilt from a code tree, and the target of every codable code's GUID. */
export interface TreeCodebooks {
  codebooks: Codebook[];
  targets: Map<string, CodeTarget>;
  warnings: string[];
  /** Id of the codebook made of codes Colloquy did not export (a project coded elsewhere). */
  foreign?: string;
}

/**
 * Codebooks from REFI-QDA codes. Top codes tagged as Colloquy codebooks come back as they were
 * exported; every other code (a project coded in another tool) goes into one nominal codebook
 * `fallbackId`, several codes per turn allowed: codable codes are categories, codes with children
 * are groups of the categories below them.
 */
export function treeCodebooks(codes: readonly QdaCode[], sets: readonly QdaSet[], fallback: { id: string; title: string; origin?: string }): TreeCodebooks {
  const out: TreeCodebooks = { codebooks: [], targets: new Map(), warnings: [] };
  const foreign: QdaCode[] = [];
  for (const code of codes) {
    const { text, meaning } = readTag(code.description);
    if (meaning?.kind !== "codebook") {
      foreign.push(code);
      continue;
    }
    const scales = code.children.filter((c) => readTag(c.description).meaning?.kind === "scale");
    if (scales.length > 0 && scales.length === code.children.length) out.codebooks.push(scalesCodebook(code, meaning, text, scales, out));
    else
      out.codebooks.push(nominalCodebook(code.children, sets, { id: meaning.id, version: meaning.version, title: code.name, description: text }, out, false));
  }
  if (foreign.length > 0) {
    out.foreign = fallback.id;
    out.codebooks.push(
      nominalCodebook(
        foreign,
        sets,
        {
          id: fallback.id,
          version: "1",
          title: fallback.title,
          description: `Codes of a REFI-QDA project${fallback.origin ? ` made with ${fallback.origin}` : ""}, imported by Colloquy.`,
        },
        out,
        true,
      ),
    );
  }
  return out;
}

function scalesCodebook(code: QdaCode, meaning: { id: string; version: string }, text: string, scales: QdaCode[], out: TreeCodebooks): ScalesCodebook {
  return {
    id: meaning.id,
    version: meaning.version,
    title: code.name,
    ...(text ? { description: text } : {}),
    unit: "turn",
    kind: "scales",
    counts: [],
    scales: scales.map((scale) => {
      const id = readTag(scale.description).meaning as { id: string };
      const points = scale.children
        .map((p) => ({ tag: readTag(p.description), guid: p.guid }))
        .sort((a, b) => pointValue(a.tag.meaning) - pointValue(b.tag.meaning));
      for (const p of points) if (p.tag.meaning?.kind === "point") out.targets.set(p.guid, { codebook: meaning.id, scale: id.id, value: p.tag.meaning.value });
      return {
        id: id.id,
        label: scale.name,
        definition: readTag(scale.description).text || scale.name,
        points: points.length,
        anchors: points.map((p) => p.tag.text || "(no anchor)"),
      };
    }),
  };
}

const pointValue = (m: CodeMeaning | undefined) => (m?.kind === "point" ? m.value : 0);

function nominalCodebook(
  codes: readonly QdaCode[],
  sets: readonly QdaSet[],
  head: { id: string; version: string; title: string; description?: string },
  out: TreeCodebooks,
  foreign: boolean,
): NominalCodebook {
  const categories: NominalCodebook["categories"] = [];
  const groups: NominalCodebook["groups"] = [];
  const categoryIds = new Set<string>();
  const groupIds = new Set<string>();
  let fallbackId: string | undefined;
  const walk = (code: QdaCode, ancestors: string[]) => {
    const { text, meaning } = readTag(code.description);
    let groupId: string | undefined;
    if (code.children.length > 0 || !code.isCodable) {
      groupId = uniqueId(meaning?.kind === "group" ? meaning.id : slugify(code.name, "group"), groupIds);
      groups.push({
        id: groupId,
        label: code.name,
        ...(meaning?.kind === "group" && meaning.groupKind ? { kind: meaning.groupKind } : {}),
        ...(text ? { description: text } : {}),
      });
    }
    if (code.isCodable) {
      const id = uniqueId(meaning?.kind === "category" ? meaning.id : slugify(code.name, "code"), categoryIds);
      const inGroups = [...ancestors, ...(groupId ? [groupId] : [])];
      categories.push({ id, label: code.name, definition: text || code.name, examples: [], ...(inGroups.length ? { groups: inGroups } : {}) });
      if (meaning?.kind === "category" && meaning.fallback) fallbackId = id;
      out.targets.set(code.guid, { codebook: head.id, category: id });
    }
    const next = groupId ? [...ancestors, groupId] : ancestors;
    for (const child of code.children) walk(child, next);
  };
  for (const code of codes) walk(code, []);
  // Sets tagged as groups of this codebook add memberships the tree could not show.
  const byGuid = new Map(
    [...out.targets].filter(([, t]) => t.codebook === head.id && "category" in t).map(([g, t]) => [g, (t as { category: string }).category]),
  );
  for (const set of sets) {
    const { text, meaning } = readTag(set.description);
    if (meaning?.kind !== "group") continue;
    const members = set.members.filter((m) => byGuid.has(m));
    if (members.length === 0) continue;
    if (!groupIds.has(meaning.id)) {
      groupIds.add(meaning.id);
      groups.push({
        id: meaning.id,
        ...(meaning.groupKind ? { kind: meaning.groupKind } : {}),
        label: set.name.startsWith(`${head.title}: `) ? set.name.slice(head.title.length + 2) : set.name,
        ...(text ? { description: text } : {}),
      });
    }
    for (const member of members) {
      const category = categories.find((c) => c.id === byGuid.get(member));
      if (category && !category.groups?.includes(meaning.id)) category.groups = [...(category.groups ?? []), meaning.id];
    }
  }
  // Drop groups nobody belongs to (a non-codable leaf in another tool is only a folder name).
  const used = new Set(categories.flatMap((c) => c.groups ?? []));
  const book: NominalCodebook = {
    id: head.id,
    version: head.version,
    title: head.title,
    ...(head.description ? { description: head.description } : {}),
    unit: "turn",
    kind: "nominal",
    multiple: foreign,
    categories,
    groups: groups.filter((g) => used.has(g.id)),
    ...(fallbackId ? { fallback: fallbackId } : {}),
  };
  if (categories.length < 2) out.warnings.push(`codebook ${head.id} has ${categories.length} codable code(s); a Colloquy codebook needs at least 2`);
  return book;
}

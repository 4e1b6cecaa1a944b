import { didYouMean } from "../../util/did-you-mean.js";
import { CliError } from "../../util/errors.js";

/**
 * How `colloquy compare` relabels before counting: codes are merged (collapse) or left out (drop),
 * conditions are merged into groups. Both are validated against what the study really has, so a
 * typo fails loudly with the list of valid names instead of silently comparing nothing.
 */

/** Code relabelling: `map[i]` is the output index of input label i, or -1 when dropped. */
export interface CodeMapping {
  labels: string[];
  map: Int32Array;
}

/**
 * Merge codes (new id -> the codes it replaces; the merged code takes the place of its first
 * member in the order) and drop codes (by input id, or by a merged id). `where` names the source
 * of the settings in error messages (e.g. "--collapse" or "colloquy.json compare.collapse").
 */
export function mapCodes(
  labels: readonly string[],
  collapse: Record<string, readonly string[]> = {},
  drop: readonly string[] = [],
  where = { collapse: "compare.collapse", drop: "compare.drop" },
): CodeMapping {
  const known = new Set(labels);
  const target = new Map<string, string>();
  for (const [merged, members] of Object.entries(collapse)) {
    if (members.length === 0) throw new CliError(`${where.collapse}: "${merged}" merges no codes; write ${merged}=code-a+code-b`);
    for (const code of members) {
      if (!known.has(code))
        throw new CliError(`${where.collapse}: "${merged}" names unknown code "${code}"; codes are: ${labels.join(", ")}${didYouMean(code, labels)}`);
      const previous = target.get(code);
      if (previous !== undefined && previous !== merged) {
        throw new CliError(`${where.collapse}: code "${code}" is merged into both "${previous}" and "${merged}"; put it in one group only`);
      }
      target.set(code, merged);
    }
  }
  const dropped = new Set<string>();
  for (const code of drop) {
    if (!known.has(code) && !(code in collapse)) {
      const choices = [...labels, ...Object.keys(collapse)];
      throw new CliError(`${where.drop}: unknown code "${code}"; codes are: ${choices.join(", ")}${didYouMean(code, choices)}`);
    }
    dropped.add(code);
  }
  const out: string[] = [];
  const outIndex = new Map<string, number>();
  const map = new Int32Array(labels.length);
  labels.forEach((label, i) => {
    const name = target.get(label) ?? label;
    if (dropped.has(label) || dropped.has(name)) {
      map[i] = -1;
      return;
    }
    let j = outIndex.get(name);
    if (j === undefined) {
      j = out.length;
      out.push(name);
      outIndex.set(name, j);
    }
    map[i] = j;
  });
  return { labels: out, map };
}

/** Condition relabelling: each study condition -> the name it is compared under. */
export interface ConditionMapping {
  /** Output conditions: the control first when given, then the rest alphabetically. */
  conditions: string[];
  /** Study condition -> output condition. */
  of: Map<string, string>;
  /** Output condition -> the study conditions it contains. */
  members: Map<string, string[]>;
}

/** Merge conditions into groups (group -> conditions) and check the control names an output condition. */
export function mapConditions(
  present: readonly string[],
  groups: Record<string, readonly string[]> = {},
  control?: string,
  where = { groups: "compare.conditionGroups", control: "compare.control" },
): ConditionMapping {
  const known = new Set(present);
  const of = new Map<string, string>();
  for (const [group, members] of Object.entries(groups)) {
    if (members.length === 0) throw new CliError(`${where.groups}: group "${group}" has no conditions; write ${group}=cond-a+cond-b`);
    for (const condition of members) {
      if (!known.has(condition)) {
        throw new CliError(`${where.groups}: group "${group}" names unknown condition "${condition}"; the study's conditions are: ${present.join(", ")}`);
      }
      const previous = of.get(condition);
      if (previous !== undefined && previous !== group) {
        throw new CliError(`${where.groups}: condition "${condition}" is in both "${previous}" and "${group}"; put it in one group only`);
      }
      of.set(condition, group);
    }
  }
  const members = new Map<string, string[]>();
  for (const condition of present) {
    const name = of.get(condition) ?? condition;
    of.set(condition, name);
    members.set(name, [...(members.get(name) ?? []), condition]);
  }
  const names = [...members.keys()].sort((a, b) => a.localeCompare(b));
  if (control !== undefined && !members.has(control)) {
    throw new CliError(`${where.control}: "${control}" is not a condition of this study; the conditions are: ${names.join(", ")}`);
  }
  const conditions = control === undefined ? names : [control, ...names.filter((n) => n !== control)];
  return { conditions, of, members };
}

/** Parse "new=a+b,other=c+d" (the --collapse and --group flags) into a record. */
export function parseMergeList(text: string, flag: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const part of text
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const eq = part.indexOf("=");
    if (eq <= 0) throw new CliError(`${flag}: "${part}" should look like name=a+b`);
    const name = part.slice(0, eq).trim();
    const members = part
      .slice(eq + 1)
      .split("+")
      .map((m) => m.trim())
      .filter(Boolean);
    if (members.length === 0) throw new CliError(`${flag}: "${part}" lists nothing after '='; write ${name}=a+b`);
    out[name] = members;
  }
  return out;
}

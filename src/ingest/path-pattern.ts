/**
 * `--path-pattern "{condition}/{run}/*"`: metadata from where a file sits. Published datasets
 * ship as `<condition>/<run>/run-<run>.md`, so the pattern is matched against the LAST segments
 * of the file's path (as many as the pattern has), and works whatever folder the user named.
 *
 * In a segment: `{name}` captures text (any name; condition, run, task and date land in the
 * session's standard metadata fields, others as extra keys), `*` matches anything, everything
 * else is literal. `run-{run}.md` therefore takes the run number from the file name.
 */
export interface PathPattern {
  source: string;
  /** Captured values, or undefined when the path does not fit the pattern. */
  match(path: string): Record<string, string> | undefined;
}

export class PathPatternError extends Error {
  constructor(pattern: string, problem: string) {
    super(`--path-pattern "${pattern}": ${problem}; expected segments like "{condition}/{run}/*" ({name} captures, * matches anything)`);
    this.name = "PathPatternError";
  }
}

export function compilePathPattern(source: string): PathPattern {
  const segments = source
    .replace(/\\/g, "/")
    .replace(/^\.?\/+|\/+$/g, "")
    .split("/")
    .filter((s) => s !== "");
  if (segments.length === 0) throw new PathPatternError(source, "the pattern is empty");
  const names: string[] = [];
  const regexes = segments.map((segment) => {
    let re = "";
    let rest = segment;
    while (rest.length > 0) {
      const placeholder = /^\{([A-Za-z_][A-Za-z0-9_-]*)\}/.exec(rest);
      if (placeholder) {
        const name = placeholder[1]!;
        if (names.includes(name)) throw new PathPatternError(source, `{${name}} appears twice`);
        names.push(name);
        re += `(?<g${names.length - 1}>.+?)`;
        rest = rest.slice(placeholder[0].length);
      } else if (rest[0] === "{" || rest[0] === "}") {
        throw new PathPatternError(source, `unbalanced or invalid placeholder in "${segment}"`);
      } else if (rest[0] === "*") {
        re += ".*?";
        rest = rest.slice(1);
      } else {
        re += rest[0]!.replace(/[.+?^$()|[\]\\]/g, "\\$&");
        rest = rest.slice(1);
      }
    }
    return new RegExp(`^${re}$`);
  });
  if (names.length === 0) throw new PathPatternError(source, "it captures nothing");
  return {
    source,
    match(path) {
      const parts = path
        .replace(/\\/g, "/")
        .split("/")
        .filter((s) => s !== "" && s !== ".");
      if (parts.length < regexes.length) return undefined;
      const tail = parts.slice(parts.length - regexes.length);
      const values: Record<string, string> = {};
      for (let i = 0; i < regexes.length; i++) {
        const m = regexes[i]!.exec(tail[i]!);
        if (!m) return undefined;
        for (const [group, value] of Object.entries(m.groups ?? {})) values[names[Number(group.slice(1))]!] = value;
      }
      return values;
    },
  };
}

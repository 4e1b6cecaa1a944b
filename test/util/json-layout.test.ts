import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { arrayLine, jsonWithArrayLines as arrayLinesChunks, jsonWithLineArrays as lineArraysChunks, splitLineArray } from "../../src/util/json-layout.js";

// The file's bytes as one buffer (the functions give its chunks, for one gathered write).
const jsonWithArrayLines = (...args: Parameters<typeof arrayLinesChunks>) => Buffer.concat(arrayLinesChunks(...args));
const jsonWithLineArrays = (...args: Parameters<typeof lineArraysChunks>) => Buffer.concat(lineArraysChunks(...args));

const pretty = (value: unknown) => JSON.stringify(value, null, 2) + "\n";

describe("jsonWithArrayLines: indented JSON with some arrays' entries one per line", () => {
  const elements = [
    { a: 1, text: 'line one\nline two "quoted" \\ \u0000', nested: { list: [1, [2, []], {}], nan: Number.NaN, gone: undefined } },
    { a: 2, inf: Number.POSITIVE_INFINITY, empty: [] },
    "a bare string",
    null,
  ];
  const object = { first: { x: [1, 2] }, items: elements, last: "end" };

  it("reads back as JSON.stringify's value (NaN and Infinity null, undefined gone), the rest laid out as JSON.stringify(value, null, 2)", () => {
    const text = jsonWithArrayLines(object, [{ path: "items", lines: elements.map(arrayLine) }]).toString("utf8");
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(object)));
    // Every other member as pretty JSON puts it; each entry compact, alone on its line.
    const lines = text.split("\n");
    expect(lines.slice(0, 7)).toEqual(pretty(object).split("\n").slice(0, 7));
    expect(lines.slice(7, 12)).toEqual(['  "items": [', ...elements.map((e, i) => `    ${JSON.stringify(e)}${i < elements.length - 1 ? "," : ""}`)]);
    expect(lines.slice(12)).toEqual(["  ],", '  "last": "end"', "}", ""]);
  });

  it("nested arrays, indented for their depth; a path that is no array is written as the rest; the object itself is not changed", () => {
    const report = {
      provenance: { tool: "t" },
      sessions: [{ id: "s1" }, { id: "s2" }],
      codes: { profiles: { members: [{ m: 1 }], overall: 3 }, phases: { sessions: [] } },
    };
    const before = structuredClone(report);
    const text = jsonWithLineArrays(report, ["sessions", "codes.profiles.members", "codes.phases.sessions", "codes.missing", "provenance.tool"]).toString(
      "utf8",
    );
    expect(report).toEqual(before);
    expect(JSON.parse(text)).toEqual(report);
    expect(text).toBe(
      [
        "{",
        '  "provenance": {',
        '    "tool": "t"',
        "  },",
        '  "sessions": [',
        '    {"id":"s1"},',
        '    {"id":"s2"}',
        "  ],",
        '  "codes": {',
        '    "profiles": {',
        '      "members": [',
        '        {"m":1}',
        "      ],",
        '      "overall": 3',
        "    },",
        '    "phases": {',
        '      "sessions": []',
        "    }",
        "  }",
        "}",
        "",
      ].join("\n"),
    );
  });

  it("lays out only arrays JSON.stringify writes at their path (through plain objects); everything else reads back as JSON.stringify's value", () => {
    class Replaced {
      list = [1, 2];
      toJSON() {
        return { replaced: true };
      }
    }
    const hidden = { shown: 1 };
    Object.defineProperty(hidden, "list", { value: [1, 2], enumerable: false });
    const cases: [object, string[]][] = [
      [{ a: new Replaced() }, ["a.list"]],
      [{ a: [[1, 2]] }, ["a.0"]],
      [{ a: hidden }, ["a.list"]],
      [[1, 2], ["0"]],
      [Object.assign(Object.create({ inherited: [1] }), { own: [2] }), ["inherited", "own"]],
      [{ toJSON: () => ({ other: 1 }), list: [1] }, ["list"]],
      [{ list: Object.assign([1, 2], { toJSON: () => "array" }) }, ["list"]],
      // The same path twice, and a path inside another one: each array written once.
      [{ list: [1, 2], nested: { inner: [3] } }, ["list", "list", "nested", "nested.inner"]],
      // A hole is null, as JSON.stringify writes it.
      [{ list: [1, , 3] }, ["list"]],
    ];
    for (const [value, paths] of cases) {
      const text = jsonWithLineArrays(value, paths).toString("utf8");
      expect(JSON.parse(text), JSON.stringify(value)).toEqual(JSON.parse(JSON.stringify(value)));
    }
    expect(jsonWithLineArrays({ list: [1, 2], nested: { inner: [3] } }, ["list", "list", "nested.inner", "nested"]).toString("utf8")).toBe(
      '{\n  "list": [\n    1,\n    2\n  ],\n  "nested": {\n    "inner": [\n      3\n    ]\n  }\n}\n',
    );
  });

  it("takes entries as UTF-8 bytes (as a memo keeps them), beyond Latin-1 too; values that hold a placeholder; entries JSON.stringify writes as null", () => {
    const wide = { items: [{ said: "Grüße — 你好 👋" }, { n: 1 }], after: "é" };
    const bytes = jsonWithArrayLines(wide, [{ path: "items", lines: wide.items.map((e) => new TextEncoder().encode(arrayLine(e))) }]);
    expect(bytes.toString("utf8")).toBe(jsonWithLineArrays(wide, ["items"]).toString("utf8"));
    expect(JSON.parse(bytes.toString("utf8"))).toEqual(wide);
    expect(jsonWithLineArrays({ items: [], after: 1 }, ["items"]).toString("utf8")).toBe(pretty({ items: [], after: 1 }));
    const tricky = { before: "lines0\u0000", items: [undefined, () => 1, 2], after: ["lines0\u0000\u0000"] };
    expect(JSON.parse(jsonWithLineArrays(tricky, ["items"]).toString("utf8"))).toEqual(JSON.parse(JSON.stringify(tricky)));
  });
});

describe("splitLineArray: an array written one entry per line, found by its lines", () => {
  const json = fc.jsonValue({ maxDepth: 3 });
  it("gives back each entry's line and the rest with a marker in the array's place, at any depth", () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.string().filter((k) => k !== "items" && k !== "a"),
          json,
          { maxKeys: 3 },
        ),
        fc.array(json, { minLength: 1, maxLength: 6 }),
        fc.constantFrom("items", "a.items", "a.b.items"),
        (other, entries, path) => {
          const object: Record<string, unknown> = { ...other };
          let parent = object;
          for (const key of path.split(".").slice(0, -1)) parent = (parent[key] = { before: 1 }) as Record<string, unknown>;
          parent.items = entries;
          const bytes = jsonWithArrayLines(object, [{ path, lines: entries.map(arrayLine) }]);
          const split = splitLineArray(bytes, path);
          expect(split).toBeDefined();
          expect(split!.lines.map((l) => l.toString("utf8"))).toEqual(entries.map(arrayLine));
          const rest = JSON.parse(split!.rest.toString("utf8")) as Record<string, unknown>;
          let at: Record<string, unknown> = rest;
          for (const key of path.split(".").slice(0, -1)) at = at[key] as Record<string, unknown>;
          expect(at.items).toBe(split!.marker);
          // As JSON reads them back (-0 is 0 in JSON).
          at.items = entries.map((e) => JSON.parse(arrayLine(e)) as unknown);
          expect(rest).toEqual(JSON.parse(JSON.stringify(object)));
        },
      ),
    );
  });

  it("is undefined for another layout, an empty array or a broken one; a line with two entries is the caller's to reject", () => {
    const object = { sessions: [{ id: 1 }, { id: 2 }], after: true };
    const laidOut = jsonWithArrayLines(object, [{ path: "sessions", lines: object.sessions.map(arrayLine) }]);
    expect(splitLineArray(laidOut, "sessions")).toBeDefined();
    expect(splitLineArray(Buffer.from(JSON.stringify(object)), "sessions")).toBeUndefined();
    expect(splitLineArray(Buffer.from(JSON.stringify(object, null, 2)), "sessions")).toBeUndefined();
    expect(splitLineArray(jsonWithArrayLines({ sessions: [] }, [{ path: "sessions", lines: [] }]), "sessions")).toBeUndefined();
    const text = laidOut.toString("utf8");
    // A missing separator, a cut file, the array named twice at its depth.
    expect(splitLineArray(Buffer.from(text.replace('{"id":1},', '{"id":1}')), "sessions")).toBeUndefined();
    expect(splitLineArray(Buffer.from(text.slice(0, text.indexOf("  ]"))), "sessions")).toBeUndefined();
    expect(splitLineArray(Buffer.from(text.replace('"after": true', '"x": {},\n  "sessions": [\n    1\n  ]')), "sessions")).toBeUndefined();
    const two = splitLineArray(Buffer.from(text.replace('{"id":1},', '{"id":1}, {"id":3},')), "sessions");
    expect(two?.lines.map(String)).toEqual(['{"id":1}, {"id":3}', '{"id":2}']);
  });
});

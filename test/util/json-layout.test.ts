import { describe, expect, it } from "vitest";
import { arrayLine, jsonWithArrayLines as arrayLinesChunks, jsonWithLineArrays as lineArraysChunks } from "../../src/util/json-layout.js";

// The file's bytes as one buffer (the functions give its chunks, for one gathered write).
const jsonWithArrayLines = (...args: Parameters<typeof arrayLinesChunks>) => Buffer.concat([...arrayLinesChunks(...args)]);
const jsonWithLineArrays = (...args: Parameters<typeof lineArraysChunks>) => Buffer.concat([...lineArraysChunks(...args)]);

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

describe("jsonWithLineArrays makes each line as it is written (issue 40)", () => {
  it("an entry's line is made when its chunk is asked for, not before: a large file's lines are never all held", () => {
    const made: number[] = [];
    const items = Array.from({ length: 1000 }, (_, i) => ({ toJSON: () => (made.push(i), { i }) }));
    const chunks = lineArraysChunks({ head: 1, items }, ["items"])[Symbol.iterator]();
    // The text before the array, "[" with the first line's indent, and the first line.
    for (let k = 0; k < 3; k++) chunks.next();
    expect(made).toEqual([0]);
    const rest = [...{ [Symbol.iterator]: () => chunks }];
    expect(made).toHaveLength(1000);
    expect(rest.length).toBeGreaterThan(1000);
  });
});

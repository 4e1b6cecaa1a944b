import { describe, expect, it } from "vitest";
import { arrayLine, jsonWithArrayLines } from "../../src/util/json-layout.js";

const pretty = (value: unknown) => JSON.stringify(value, null, 2) + "\n";

describe("jsonWithArrayLines: pretty JSON with one array's entries one per line", () => {
  const elements = [
    { a: 1, text: 'line one\nline two "quoted" \\ \u0000lines\u0000', nested: { list: [1, [2, []], {}], nan: Number.NaN, gone: undefined } },
    { a: 2, inf: Number.POSITIVE_INFINITY, empty: [] },
    "a bare string",
    null,
  ];
  const object = { first: { x: [1, 2] }, items: elements, last: "end" };

  it("reads back as JSON.stringify's value (NaN and Infinity null, undefined gone), the rest laid out as JSON.stringify(value, null, 2)", () => {
    const text = jsonWithArrayLines(object, "items", elements.map(arrayLine)).toString("utf8");
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(object)));
    // Every other member as pretty JSON puts it; each entry compact, alone on its line.
    const lines = text.split("\n");
    expect(lines.slice(0, 7)).toEqual(pretty(object).split("\n").slice(0, 7));
    expect(lines.slice(7, 12)).toEqual(['  "items": [', ...elements.map((e, i) => `    ${JSON.stringify(e)}${i < elements.length - 1 ? "," : ""}`)]);
    expect(lines.slice(12)).toEqual(["  ],", '  "last": "end"', "}", ""]);
  });

  it("takes entries as UTF-8 bytes (as a memo keeps them), beyond Latin-1 too; an empty array; a missing key is an error", () => {
    const wide = { items: [{ said: "Grüße — 你好 👋" }, { n: 1 }], after: "é" };
    const bytes = jsonWithArrayLines(
      wide,
      "items",
      wide.items.map((e) => new TextEncoder().encode(arrayLine(e))),
    );
    expect(bytes.toString("utf8")).toBe(jsonWithArrayLines(wide, "items", wide.items.map(arrayLine)).toString("utf8"));
    expect(JSON.parse(bytes.toString("utf8"))).toEqual(wide);
    expect(jsonWithArrayLines({ items: [], after: 1 }, "items", []).toString("utf8")).toBe(pretty({ items: [], after: 1 }));
    expect(() => jsonWithArrayLines({ other: 1 }, "items", [])).toThrow(/no "items" property/);
    // A value that holds the placeholder, and entries JSON.stringify writes as null.
    const tricky = { before: "\u0000lines\u0000", items: [undefined, () => 1, 2], after: ["\u0000lines\u0000\u0000"] };
    const text = jsonWithArrayLines(tricky, "items", tricky.items.map(arrayLine)).toString("utf8");
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(tricky)));
  });
});

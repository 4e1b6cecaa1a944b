import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { jsonElements, jsonMembers, JsonSpanError, parseSpan } from "../../src/util/json-spans.js";

/** JSON text of a value the way writers lay it out: compact, indented, tabbed, or spread with extra space. */
function layouts(value: unknown): string[] {
  const compact = JSON.stringify(value);
  return [compact, JSON.stringify(value, null, 2), JSON.stringify(value, null, "\t"), ` \r\n${JSON.stringify(value, null, "\r\n \t")}\n `];
}

describe("jsonMembers / jsonElements: where members and elements lie, without parsing them", () => {
  it("every member span parses to what JSON.parse of the whole text gives (any keys, any values, any layout)", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ unit: "binary" }), fc.jsonValue()), (object) => {
        for (const text of layouts(object)) {
          const bytes = Buffer.from(text);
          const whole = JSON.parse(text) as Record<string, unknown>;
          const members = jsonMembers(bytes);
          expect([...members.keys()].sort()).toEqual(Object.keys(whole).sort());
          for (const [key, span] of members) expect(parseSpan(bytes, span)).toEqual(whole[key]);
        }
      }),
      { numRuns: 200 },
    );
  });

  it("every element span of an array member parses to that element", () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue()), (list) => {
        for (const text of layouts({ before: "x", list, after: [1, { "]": "[" }] })) {
          const bytes = Buffer.from(text);
          const elements = jsonElements(bytes, jsonMembers(bytes).get("list")!.start);
          expect(elements.map((span) => parseSpan(bytes, span))).toEqual(JSON.parse(text).list);
          // Split while scanning the members: the same elements, and the member's span.
          const split = jsonMembers(bytes, undefined, { split: new Set(["list"]) }).get("list")!;
          expect(split.elements).toEqual(elements);
          expect(parseSpan(bytes, split)).toEqual(JSON.parse(text).list);
        }
      }),
      { numRuns: 200 },
    );
  });

  it("finds the end of long strings full of escapes (the byte loop hands over to indexOf after 48 bytes)", () => {
    const text = fc.string({ unit: fc.constantFrom("a", "\\", '"', "é", "\n"), minLength: 30, maxLength: 140 });
    fc.assert(
      fc.property(text, text, (a, b) => {
        const json = JSON.stringify({ [a]: b, after: a });
        const bytes = Buffer.from(json);
        const members = jsonMembers(bytes);
        expect(parseSpan(bytes, members.get(a)!)).toBe(b);
        expect(parseSpan(bytes, members.get("after")!)).toBe(a);
      }),
      { numRuns: 500 },
    );
  });

  it("reads strings with escaped quotes and backslashes, brackets inside strings, and multi-byte characters", () => {
    const value = { 'a"b': 'quote " and \\ backslash \\" end', "x\\": ["]", "}", "{", "[", 'é "ü" 漢字 🙂'], last: "\\\\" };
    const bytes = Buffer.from(JSON.stringify(value));
    const members = jsonMembers(bytes);
    expect(Object.fromEntries([...members].map(([k, span]) => [k, parseSpan(bytes, span)]))).toEqual(value);
  });

  it("skips a UTF-8 byte order mark; a key given twice keeps the last, as JSON.parse does", () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1,"a":[2]}')]);
    expect(parseSpan(bytes, jsonMembers(bytes).get("a")!)).toEqual([2]);
    expect(jsonElements(Buffer.from(" [ ] "), 1)).toEqual([]);
    expect(jsonMembers(Buffer.from(" {} ")).size).toBe(0);
  });

  it.each([
    ['{"a":[1,2}', "a bracket closed by the wrong kind"],
    ['{"a":"never closed}', "a string never closed"],
    ['{"a":1', "an object cut short"],
    ['{"a":1}x', "text after the value"],
    ['{"a" 1}', "a missing colon"],
    ['{"a":1 "b":2}', "a missing comma"],
    ["[1,2]", "not an object"],
    ['{"a":tr"ue}', "a quote inside a literal"],
    ["", "nothing at all"],
  ])("names the byte where %s goes wrong (%s)", (text) => {
    expect(() => jsonMembers(Buffer.from(text))).toThrow(JsonSpanError);
  });

  it("with the members wanted, stops once it has them, but still tells a text cut short", () => {
    const bytes = Buffer.from('{"provenance":{"v":1},"rest":[1,2,}, "bad" ]  }');
    expect(parseSpan(bytes, jsonMembers(bytes, undefined, { wanted: new Set(["provenance"]) }).get("provenance")!)).toEqual({ v: 1 });
    expect(() => jsonMembers(bytes)).toThrow(JsonSpanError);
    expect(() => jsonMembers(Buffer.from('{"provenance":{"v":1},"rest":[1,2'), undefined, { wanted: new Set(["provenance"]) })).toThrow("cut short");
  });

  it("the error says what was expected and where", () => {
    expect(() => jsonMembers(Buffer.from('{"a":1 "b":2}'))).toThrow('expected "," or "}" at byte 7');
  });
});

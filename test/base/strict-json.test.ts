// Strict JSON (issue 20): a duplicate key is named with both lines, a syntax error by line and column
// without quoting the text, and whatever passes parses exactly as JSON.parse does.
import { describe, expect, it } from 'vitest';
import { describeDuplicate, parseJsonStrict } from '../../src/base/strict-json.js';

const agrees = (text: string): boolean => {
  let ok = true;
  try {
    JSON.parse(text);
  } catch {
    ok = false;
  }
  const r = parseJsonStrict(text);
  return ('problem' in r) === !ok;
};

describe('parseJsonStrict', () => {
  it('a key given twice in one object is listed with both lines and the object\'s path', () => {
    const r = parseJsonStrict('{\n "security": {\n  "x": {"effect": "destructive",\n "effect": "read_only"}\n }\n}');
    expect(r).toEqual({ duplicates: [{ path: 'security.x', key: 'effect', firstLine: 3, line: 4 }] });
    expect(describeDuplicate((r as { duplicates: never[] }).duplicates[0]!)).toBe('key "effect" in security.x appears twice, at line 3 and again at line 4; JSON keeps only the last');
  });

  it('an escaped spelling of the same key is the same key', () => {
    expect('duplicates' in parseJsonStrict('{"id": "a", "\\u0069d": "b"}')).toBe(true);
  });

  it('equal keys in different objects are not duplicates', () => {
    expect(parseJsonStrict('[{"a": 1}, {"a": 2}]')).toEqual({ value: [{ a: 1 }, { a: 2 }] });
  });

  it('a syntax error is named by line and column and quotes nothing', () => {
    const r = parseJsonStrict('root:$y$j9T$secret:19000::::::\n');
    expect(r).toMatchObject({ line: 1, column: 1 });
    expect(JSON.stringify(r)).not.toContain('secret');
  });

  it('agrees with JSON.parse on what is JSON, over many valid and broken texts', () => {
    const samples = ['{}', '[]', '0', '-0', '01', '1.', '.5', '1e5', '1E+5', '-', '"a\\x"', '"\\u12"', '"\\u1234"', 'tru', 'true', 'null ', ' [1,]', '[1 2]', '{"a":1,}', '{"a"}', '"\t"', '"\\t"', '\ufeff{}', '{"a":[{"b":null}]} x', '', '   ', '1 2', '"\u2028"', '[-1.5e-3]', '{"__proto__": 1}'];
    for (const s of samples) expect(agrees(s), s).toBe(true);
  });

  // issue 32: a text JSON.parse takes is counted rather than scanned; the count must not be fooled
  it('finds a repeated key however the text around it is spelled: colons and quotes inside strings, deep objects, arrays', () => {
    const spelled = String.raw`{"a:b": "c:d", "e": "\\", "f": "x\":"}`;
    expect(parseJsonStrict(spelled)).toEqual({ value: JSON.parse(spelled) });
    expect(Object.keys(JSON.parse(spelled) as object)).toEqual(['a:b', 'e', 'f']);
    expect(parseJsonStrict(String.raw`{"k": "a\"b:c", "k": 1}`)).toEqual({ duplicates: [{ path: '', key: 'k', firstLine: 1, line: 1 }] });
    expect(parseJsonStrict('[1, [2, {"x": {"y": [{"z": 1, "z": 2}]}}]]')).toMatchObject({ duplicates: [{ key: 'z' }] });
    expect(parseJsonStrict('{"__proto__": 1, "__proto__": 2}')).toMatchObject({ duplicates: [{ key: '__proto__' }] });
    expect(parseJsonStrict('{"a": {}, "b": []}')).toEqual({ value: { a: {}, b: [] } });
  });

  it('a text nested deeper than the limit is refused, though JSON.parse takes it', () => {
    const deep = '['.repeat(600) + ']'.repeat(600);
    expect(() => JSON.parse(deep)).not.toThrow();
    expect(parseJsonStrict(deep)).toMatchObject({ problem: expect.stringContaining('nested deeper than 512 levels') });
    expect(parseJsonStrict('{"a":'.repeat(600) + '1' + '}'.repeat(600))).toHaveProperty('problem');
  });
});

// The composition's hash and text taken in one walk (issue 32, a worker's start) are those of
// compositionHash and compositionText, byte for byte: replay compares them across versions.
import { describe, expect, it } from 'vitest';
import { compositionHash, compositionText, type Composition } from '../../src/ledger/composition.js';
import { compositionForms } from '../../src/root/composition.js';
import { initRoot } from '../../src/root/init.js';
import { openRuntime } from '../../src/root/runtime.js';
import { tempDir } from '../helpers/temp.js';

const both = (c: Composition) => ({ hash: compositionHash(c), text: compositionText(c) });
const doc = (extra: Record<string, unknown>): Composition => ({
  composition: 'composition@1', capabilities: {}, schemas: {}, tools: {}, providers: {}, prompts: {},
  policy: { settings: {}, code: {} }, provider_code: {}, ...extra,
} as Composition);

describe('compositionForms', () => {
  it('gives the shipped root\'s hash and text as compositionHash and compositionText do', async () => {
    const root = tempDir('pico-forms-');
    initRoot(root);
    const rt = await openRuntime(root, { deferWarm: true });
    try {
      const { doc: c, hash } = rt.currentComposition();
      expect(compositionForms(c)).toEqual(both(c));
      expect(compositionForms(c).hash).toBe(hash);
    } finally {
      await rt.close();
    }
  });

  it('keeps canonical order for keys JSON.stringify would order otherwise, and leaves out what canonical JSON leaves out', () => {
    const cases: Record<string, unknown>[] = [
      { schemas: { s: { properties: { b: 1, a: 2, B: 3, é: 4, $id: 'x', '': 5, 'a b': [1, 'two', null, { z: true, y: false }] } } } },
      { schemas: { s: { '10': 'ten', '2': 'two', $id: 'first by code unit', a: 1 } } }, // array-index keys: a JS object puts them first
      { providers: { p: { id: 'p', timeout: undefined, nested: { gone: undefined, kept: 0 } } } },
      { providers: { p: { n: -0, big: 1e21, small: 1e-7, when: new Date(0), list: [undefined, 1] } } },
      { providers: { p: { holes: [1, , 3] } } }, // eslint-disable-line no-sparse-arrays
      { providers: { p: { fn: () => 1, n: Number.NaN } } },
      { providers: Object.assign(Object.create(null) as Record<string, unknown>, { z: 1, a: { '4294967296': 'not an index' } }) },
    ];
    // what each gives, or the error it throws (canonical JSON of a sparse array is no JSON at all)
    const outcome = (f: () => unknown): unknown => {
      try {
        return f();
      } catch (err) {
        return { threw: (err as Error).name };
      }
    };
    for (const extra of cases) {
      const c = doc(extra);
      expect(outcome(() => compositionForms(c)), JSON.stringify(Object.keys(extra))).toEqual(outcome(() => both(c)));
    }
  });
});

// The registry (design §3, P13): strict manifests, cross-references, and scopes that unwind.
import { describe, expect, it } from 'vitest';
import { loadRoot } from '../../src/registry/load.js';
import { Registry } from '../../src/registry/registry.js';
import { Scope } from '../../src/registry/scope.js';
import { tempDir } from '../helpers/temp.js';
import { issuesOf, writeMiniRoot } from './helpers.js';

const tmp = () => tempDir('pico-reg-');

describe('registry', () => {
  it('loads a valid root', () => {
    const root = tmp();
    writeMiniRoot(root);
    const loaded = loadRoot(root);
    expect(loaded.registry.snapshot().providers).toEqual(['p1']);
  });

  it('a misspelt key fails naming the file and the key, with a did-you-mean', () => {
    const root = tmp();
    writeMiniRoot(root, { secuirty: {} });
    const issues = issuesOf(root);
    const i = issues.find((x) => x.path.includes('secuirty'));
    expect(i?.file).toBe('manifests/providers/p1.json');
    expect(i?.fix).toMatch(/did you mean "security"/);
  });

  it('a misspelt nested key is refused too', () => {
    const root = tmp();
    writeMiniRoot(root, { security: { 'extract@1': { max_trust_in: 'T1', may_emit_control: false, may_emit_contorl: true } } });
    expect(issuesOf(root).some((i) => i.path === 'security.extract@1.may_emit_contorl')).toBe(true);
  });

  it('a data capability can never emit control', () => {
    const root = tmp();
    writeMiniRoot(root, { security: { 'extract@1': { max_trust_in: 'T1', may_emit_control: true } } });
    expect(issuesOf(root).some((i) => /can never emit control/.test(i.message))).toBe(true);
  });

  it('a control capability may not read T1 input', () => {
    const root = tmp();
    writeMiniRoot(root, { implements: ['plan@1'], security: { 'plan@1': { max_trust_in: 'T1', may_emit_control: true } } });
    expect(issuesOf(root).some((i) => /may not read T1/.test(i.message))).toBe(true);
  });

  it('an unknown trust level in a manifest is an error, not a default', () => {
    const root = tmp();
    writeMiniRoot(root, { security: { 'extract@1': { max_trust_in: 'T9', may_emit_control: false } } });
    expect(issuesOf(root).some((i) => i.path.endsWith('max_trust_in'))).toBe(true);
  });

  it('an escalation target that does not exist is named', () => {
    const root = tmp();
    writeMiniRoot(root, { escalates_to: ['nobody'] });
    expect(issuesOf(root).some((i) => i.path === 'escalates_to.0' && /nobody/.test(i.message))).toBe(true);
  });

  it('load then unload leaves the registry as before', async () => {
    const root = tmp();
    writeMiniRoot(root);
    const registry = new Registry();
    const before = registry.snapshot();
    const loaded = loadRoot(root, registry);
    expect(registry.snapshot()).not.toEqual(before);
    await loaded.scope.unwind();
    expect(registry.snapshot()).toEqual(before);
  });

  it('one bad undo does not strand the rest', async () => {
    const order: string[] = [];
    const scope = new Scope('t');
    scope.defer(() => { order.push('a'); });
    scope.defer(() => { throw new Error('bad'); });
    scope.defer(() => { order.push('c'); });
    await expect(scope.unwind()).rejects.toThrow(AggregateError);
    expect(order).toEqual(['c', 'a']);
  });
});

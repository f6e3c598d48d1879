// Manifests that would widen a boundary are refused at load (issue 14, item 5): each refusal names
// the file, the key path and the fix. Real files in real temporary roots.
import { mkdirSync, symlinkSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ManifestIssue } from '../../src/registry/boundary.js';
import { PACKAGE_DIR } from '../../src/root/runtime.js';
import { put } from '../helpers/root.js';
import { tempDir } from '../helpers/temp.js';
import { issuesOf, writeMiniRoot } from './helpers.js';

const tmp = () => tempDir('pico-bound-');

function tool(over: Record<string, unknown>): Record<string, unknown> {
  return {
    manifest: 'tool@1', name: 't', description: 'x', command: ['cat'],
    input_schema: { type: 'object', properties: { msg: { type: 'string' }, path: { type: 'string' } }, additionalProperties: false },
    output: { media: 'text' }, reducer: 'extract@1', effect: 'read_only', idempotent: true, trust_out: 'T1',
    limits: { timeout_ms: 1000, max_output_bytes: 1000 }, ...over,
  };
}

function shell(command: string[]): Record<string, unknown> {
  return {
    manifest: 'provider@1', id: 's', kind: 'shell', command, implements: ['extract@1'], max_input_bytes: 1000,
    resource: null, cost: null, security: { 'extract@1': { max_trust_in: 'T1', may_emit_control: false } },
    confidence_floor: null, escalates_to: [], limits: { timeout_ms: 1000, max_output_bytes: 1000 },
  };
}

/** A root with one tool manifest; the issues it raises. */
function withTool(over: Record<string, unknown>, setup?: (root: string) => void): ManifestIssue[] {
  const root = tmp();
  writeMiniRoot(root);
  setup?.(root);
  put(root, 'manifests/tools/t.json', tool(over));
  return issuesOf(root);
}

function withShell(command: string[], setup?: (root: string) => void): ManifestIssue[] {
  const root = tmp();
  writeMiniRoot(root);
  setup?.(root);
  put(root, 'manifests/providers/s.json', shell(command));
  return issuesOf(root);
}

const script = (root: string, rel: string) => {
  mkdirSync(join(root, rel, '..'), { recursive: true });
  writeFileSync(join(root, rel), '#!/bin/sh\necho {}\n');
  chmodSync(join(root, rel), 0o755);
};

describe('manifests refuse what widens a boundary', () => {
  it('the shipped manifests load under these rules', () => {
    expect(issuesOf(PACKAGE_DIR)).toEqual([]);
  });

  it('a shell provider inside the root, a bare system name and an absolute system path load', () => {
    expect(withShell(['providers/p.sh'], (r) => script(r, 'providers/p.sh'))).toEqual([]);
    expect(withShell(['awk', '-f', 'x.awk'])).toEqual([]);
    expect(withShell(['/usr/bin/awk', '{print}'])).toEqual([]);
  });

  it('a provider command that climbs out with ../ is refused, naming the file, key path and fix', () => {
    const [i] = withShell(['../x']);
    expect(i).toMatchObject({ file: 'manifests/providers/s.json', path: 'command.0' });
    expect(i!.message).toMatch(/climbs out of the root/);
    expect(i!.fix).toMatch(/COMMAND_DIRS/);
  });

  it('an absolute command outside the system command folders is refused', () => {
    const [i] = withShell(['/tmp/evil.sh']);
    expect(i).toMatchObject({ file: 'manifests/providers/s.json', path: 'command.0' });
    expect(i!.message).toMatch(/outside the root and the system command folders/);
    expect(withTool({ command: ['/opt/x/run'] })[0]).toMatchObject({ file: 'manifests/tools/t.json', path: 'command.0' });
  });

  it('a command that is a symlink out of the root is refused', () => {
    const out = tmp();
    script(out, 'evil.sh');
    const [i] = withShell(['providers/p.sh'], (r) => {
      mkdirSync(join(r, 'providers'), { recursive: true });
      symlinkSync(join(out, 'evil.sh'), join(r, 'providers/p.sh'));
    });
    expect(i).toMatchObject({ file: 'manifests/providers/s.json', path: 'command.0' });
    expect(i!.message).toMatch(/symlink to .*outside the root/);
  });

  it('a manifest file that is a symlink out of the root is refused, and so is a manifest folder', () => {
    const out = tmp();
    put(out, 'evil.json', tool({ name: 'evil' }));
    const root = tmp();
    writeMiniRoot(root);
    mkdirSync(join(root, 'manifests/tools'), { recursive: true });
    symlinkSync(join(out, 'evil.json'), join(root, 'manifests/tools/evil.json'));
    const [i] = issuesOf(root);
    expect(i).toMatchObject({ file: 'manifests/tools/evil.json', path: '' });
    expect(i!.message).toMatch(/symlink to .*outside the root/);
    expect(i!.fix).toMatch(/copy the manifest into the root/);

    const root2 = tmp();
    writeMiniRoot(root2);
    mkdirSync(join(out, 'tools'));
    symlinkSync(join(out, 'tools'), join(root2, 'manifests/tools'));
    expect(issuesOf(root2)[0]).toMatchObject({ file: 'manifests/tools' });
  });

  it('a symlinked manifest is refused even when it stays inside the root: no link is followed (design §13)', () => {
    const root = tmp();
    writeMiniRoot(root);
    put(root, 'shared/t.json', tool({}));
    mkdirSync(join(root, 'manifests/tools'), { recursive: true });
    symlinkSync(join(root, 'shared/t.json'), join(root, 'manifests/tools/t.json'));
    expect(issuesOf(root)).toMatchObject([{ file: 'manifests/tools/t.json', message: expect.stringMatching(/symlink/) }]);
  });

  it('["sh", "-c", "{msg}"] is refused: the argument would run as code', () => {
    const [i] = withTool({ command: ['sh', '-c', '{msg}'] });
    expect(i).toMatchObject({ file: 'manifests/tools/t.json', path: 'command.2' });
    expect(i!.message).toMatch(/as code/);
    expect(i!.fix).toMatch(/positional parameter/);
    for (const command of [['bash', '-c', 'echo {msg}'], ['/usr/bin/python3', '-c', '{msg}'], ['env', 'LC_ALL=C', 'node', '-e', '{msg}'], ['awk', '{msg}'], ['sed', '-e', '{msg}']]) {
      expect(withTool({ command }).some((x) => x.path.startsWith('command.')), JSON.stringify(command)).toBe(true);
    }
  });

  it('a shell with literal code and the argument as a positional parameter loads', () => {
    expect(withTool({ command: ['sh', '-c', 'printf "%s\\n" "$1"', 'sh', '{msg}'] })).toEqual([]);
    expect(withTool({ command: ['awk', '{ print }', '{msg}'] })).toEqual([]);
  });

  it('a placeholder inside a larger string is refused at load, naming the element', () => {
    const [i] = withTool({ command: ['echo', 'say {msg}'] });
    expect(i).toMatchObject({ file: 'manifests/tools/t.json', path: 'command.1' });
    expect(i!.message).toMatch(/inside a larger string/);
    expect(i!.fix).toMatch(/its own argv element/);
    expect(withTool({ command: ['echo', 'say {msg?}'] })[0]).toMatchObject({ path: 'command.1', message: expect.stringMatching(/inside a larger string/) });
    expect(withTool({ command: ['echo', '--to=x{msg}'] })[0]).toMatchObject({ path: 'command.1', message: expect.stringMatching(/inside a larger string/) });
  });

  it('the whole-element forms of tool@1 load: "{msg}", "{msg?}", and the value attached to its option as "--opt={msg}" or "--opt={msg?}"', () => {
    expect(withTool({ command: ['grep', '--regexp={msg}', '--', '{path?}'] })).toEqual([]);
    expect(withTool({ command: ['grep', '--regexp={nope?}'] })[0]).toMatchObject({ path: 'command.1', message: expect.stringMatching(/no property/) });
  });

  it('a placeholder naming no input property, or used as the program, is refused', () => {
    expect(withTool({ command: ['cat', '{nope}'] })[0]).toMatchObject({ path: 'command.1', message: expect.stringMatching(/no property/) });
    expect(withTool({ command: ['{msg}'] })[0]).toMatchObject({ path: 'command.0', message: expect.stringMatching(/never choose what runs/) });
  });

  it.each(['T0', 'T2'])('trust_out "%s" on a tool is refused with the reason', (level) => {
    const [i] = withTool({ command: ['cat', '{path}'], trust_out: level });
    expect(i).toMatchObject({ file: 'manifests/tools/t.json', path: 'trust_out' });
    expect(i!.message).toMatch(/outside data/);
    expect(i!.fix).toBe('set "trust_out": "T1"');
  });

  it('an argument can never choose or become an interpreter\'s code: not as its script, not among its options, not after any code flag', () => {
    const refused: string[][] = [
      ['sh', '{msg}'], // the script file
      ['sh', '-e', '{msg?}', '-c', 'echo hi'], // an option of the shell itself, before its code
      ['bash', '-ec', '{msg}'], // -c inside a cluster of short options
      ['perl', '-ne', '{msg}', 'f'],
      ['node', '--eval={msg}'], // the code attached to its flag
      ['python3', '-W', 'ignore', '-c', '{msg}'], // a later code flag still takes code
      ['python3', '-m', '{msg}'], // the module to run
      ['env', '{msg}', 'ls'], // env's program
      ['env', '--unset={msg}', 'ls'],
    ];
    for (const command of refused) {
      const issues = withTool({ command });
      expect(issues.some((x) => x.path.startsWith('command.') && /as code|own options|variable or as the program|as its program/.test(x.message)), JSON.stringify(command)).toBe(true);
    }
  });

  it('the admin tools\' form loads: literal code, then the command name, then placeholders as $1..$n (also attached to options)', () => {
    expect(withTool({ command: ['/bin/sh', '-c', 'exec journalctl "$@"', 'journal', '--since={msg?}', '{path?}'] })).toEqual([]);
    expect(withTool({ command: ['python3', 'tool.py', '{msg}'] }, (root) => script(root, 'tool.py'))).toEqual([]);
    expect(withTool({ command: ['env', 'LC_ALL=C', 'sh', '-c', 'echo "$1"', 'sh', '{msg}'] })).toEqual([]);
  });

  it('a host_view that rules out the tool\'s own requires_isolation is refused, naming the level it leaves', () => {
    expect(withTool({ host_view: ['fs'], requires_isolation: 'partial' })).toEqual([]);
    const [i] = withTool({ host_view: ['net'], requires_isolation: 'partial' });
    expect(i).toMatchObject({ file: 'manifests/tools/t.json', path: 'requires_isolation', message: expect.stringMatching(/at most "none"/) });
    expect(withTool({ host_view: ['pid'], requires_isolation: 'full' })[0]!.fix).toMatch(/lower requires_isolation to "network"/);
  });

  it('host_view is a list of known views: the old boolean form and an unknown view are refused with the fix', () => {
    const [b] = withTool({ host_view: true });
    expect(b).toMatchObject({ path: 'host_view', fix: expect.stringMatching(/\["fs"\]/) });
    expect(withTool({ host_view: ['disk'] })[0]).toMatchObject({ path: 'host_view.0', message: expect.stringMatching(/"fs", "pid", "net"/) });
    expect(withTool({ host_view: ['pid', 'pid'] })[0]!.message).toMatch(/each view once/);
  });

  it('requires_isolation must be a known level', () => {
    expect(withTool({ requires_isolation: 'full' })).toEqual([]);
    expect(withTool({ requires_isolation: 'total' })[0]).toMatchObject({ path: 'requires_isolation' });
  });
});

// The shipped tool catalog a planner retrieves over: every tool says what it reads (description),
// when it is the right one in an admin's words (when) and what it reduces to (fact_schema), and
// every argument is held by its input_schema so it can never become an option or a path trick.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRoot } from '../../src/registry/load.js';
import { toolManifestSchema, type ToolManifest } from '../../src/registry/manifest.js';
import { buildArgv } from '../../src/tools/args.js';
import { ProviderError } from '../../src/runtime/provider.js';
import type { WorldCapabilities } from '../../src/world/capabilities.js';
import { NO_ISOLATION } from '../../src/world/sandbox.js';
import type { HostView } from '../../src/registry/host-view.js';
import { wrapArgv } from '../../src/world/wrap.js';
import { makeRoot, put, REPO } from '../helpers/root.js';
import { issuesOf } from './helpers.js';

const loaded = loadRoot(REPO);
const tools = loaded.documents.tools;
const tool = (name: string): ToolManifest => tools[name]!;

/** The refusal a call gets, or null when it builds. */
async function refusal(name: string, args: Record<string, unknown>): Promise<string | null> {
  try {
    await buildArgv(tool(name), args, REPO);
    return null;
  } catch (err) {
    if (err instanceof ProviderError) return err.message;
    throw err;
  }
}

describe('the shipped tool catalog', () => {
  it('ships at least ten read-only tools (a destructive one names its write_paths), each with a one-line description and when, and a fact_schema', () => {
    expect(Object.values(tools).filter((t) => t.effect === 'read_only').length).toBeGreaterThanOrEqual(10);
    for (const t of Object.values(tools)) {
      // a destructive tool changes only its write_paths, and only after a person approves the step
      if (t.effect === 'destructive') expect(t.write_paths?.length, `${t.name}: a destructive tool names its write_paths`).toBeGreaterThan(0);
      else expect(t.write_paths ?? [], t.name).toEqual([]);
      expect(t.trust_out, t.name).toBe('T1');
      for (const line of [t.description, t.when]) {
        expect(line, `${t.name}: description and when are required`).toBeTruthy();
        expect(line!.length, `${t.name}: "${line}" is too long for a small model's prompt`).toBeLessThanOrEqual(120);
        expect(line, `${t.name}: one line`).not.toMatch(/\n/);
      }
      expect(t.fact_schema, `${t.name} needs a fact_schema`).toBeTruthy();
    }
  });

  it('every fact_schema is produced by a shipped deterministic provider (code, or a shell parser), so each tool reduces without a model', () => {
    const codeSchemas = new Set(Object.values(loaded.documents.providers).filter((p) => p.kind === 'code' || p.kind === 'shell').flatMap((p) => p.schemas ?? []));
    for (const t of Object.values(tools)) if (t.fact_schema) expect(codeSchemas.has(t.fact_schema), `${t.name} -> ${t.fact_schema}`).toBe(true);
  });

  it('every input_schema is a closed object and every string argument is bounded by a pattern, enum or read_paths', () => {
    for (const t of Object.values(tools)) {
      const s = t.input_schema as { type?: string; additionalProperties?: boolean; properties?: Record<string, Record<string, unknown>> };
      expect(s.type, t.name).toBe('object');
      expect(s.additionalProperties, t.name).toBe(false);
      for (const [name, p] of Object.entries(s.properties ?? {})) {
        if (p.type !== 'string') continue;
        expect(Boolean(p.pattern || p.enum || t.path_args.includes(name)), `${t.name}.${name}`).toBe(true);
      }
    }
  });

  it('an old tool manifest without when or fact_schema still loads', () => {
    const old = JSON.parse(readFileSync(join(REPO, 'manifests/tools/capture_df.json'), 'utf8')) as Record<string, unknown>;
    delete old.when;
    delete old.fact_schema;
    expect(toolManifestSchema.safeParse(old).success).toBe(true);
  });

  it('a fact_schema that does not exist, or that the reducer cannot produce, is a load error naming the file and the fix', () => {
    const root = makeRoot('pico-catalog-');
    const base = JSON.parse(readFileSync(join(REPO, 'manifests/tools/capture_df.json'), 'utf8')) as Record<string, unknown>;
    put(root, 'manifests/tools/capture_df.json', { ...base, fact_schema: 'disk_usge@1' });
    put(root, 'manifests/schemas/orphan@1.json', { $id: 'orphan@1', type: 'object' });
    put(root, 'manifests/tools/memory_usage.json', { ...JSON.parse(readFileSync(join(REPO, 'manifests/tools/memory_usage.json'), 'utf8')), fact_schema: 'orphan@1' });
    const issues = issuesOf(root);
    expect(issues).toContainEqual(expect.objectContaining({ file: 'manifests/tools/capture_df.json', path: 'fact_schema', message: 'schema "disk_usge@1" does not exist' }));
    expect(issues).toContainEqual(expect.objectContaining({ file: 'manifests/tools/memory_usage.json', path: 'fact_schema', fix: expect.stringMatching(/add "orphan@1" to "schemas" in manifests\/capabilities\/extract@1.json/) }));
  });
});

describe('arguments become whole argv elements', () => {
  it('journal_window attaches each given value to its option and drops the absent ones', async () => {
    const argv = await buildArgv(tool('journal_window'), { since: '-2h', unit: 'nginx.service', boot: -1 }, REPO);
    expect(argv.slice(4)).toEqual(['--since=-2h', '--unit=nginx.service', '--boot=-1']);
    expect(argv.slice(0, 2)).toEqual(['/bin/sh', '-c']);
  });

  it('a time window, unit or priority that could become an option or a glob is refused before anything runs', async () => {
    for (const args of [{ since: '--output=json' }, { since: '1h; rm -rf /' }, { unit: '-h' }, { unit: '../../etc/passwd' }, { unit: 'ng*' }, { priority: 'everything' }, { boot: 1 }, { lines: 10 }]) {
      expect(await refusal('journal_window', args), JSON.stringify(args)).toMatch(/arguments do not fit input_schema/);
    }
    expect(await refusal('journal_window', { since: 'yesterday', until: '2024-03-03 14:00' })).toBeNull();
    expect(await refusal('journal_window', { since: '30 min ago' })).toBeNull();
  });

  it('unit_status needs a unit and puts it after "--"', async () => {
    expect(await refusal('unit_status', {})).toMatch(/input_schema/);
    const argv = await buildArgv(tool('unit_status'), { unit: 'mnt-data.mount' }, REPO);
    expect(argv.slice(-2)).toEqual(['--', 'mnt-data.mount']);
  });

  it('file_stat stats only paths inside its read_paths, after symlinks', async () => {
    expect(await refusal('file_stat', { path: '/root/.ssh/id_ed25519' })).toMatch(/outside read_paths|cannot be resolved/);
    expect(await refusal('file_stat', { path: '--help' })).toMatch(/could be read as an option/);
    const argv = await buildArgv(tool('file_stat'), { path: 'examples/data/df.txt' }, REPO);
    expect(argv.at(-1)).toBe(join(REPO, 'examples/data/df.txt'));
  });

  it('load_top sorts by cpu or mem only', async () => {
    expect(await refusal('load_top', { sort: 'pid' })).toMatch(/input_schema/);
    expect((await buildArgv(tool('load_top'), {}, REPO)).at(-1)).toBe('load_top');
    expect((await buildArgv(tool('load_top'), { sort: 'mem' }, REPO)).at(-1)).toBe('mem');
  });
});

describe('host_view: a tool that looks at the machine sees exactly what it names of the host', () => {
  const unshare: WorldCapabilities = { ...NO_ISOLATION, level: 'partial', wrapper: 'unshare', wrapperPath: '/usr/bin/unshare' };
  const bwrap: WorldCapabilities = { ...NO_ISOLATION, level: 'full', wrapper: 'bwrap', wrapperPath: '/usr/bin/bwrap' };
  const asRoot: WorldCapabilities = { ...bwrap, runAsUid: 65534, dropperPath: '/usr/bin/setpriv' };
  /** The wrapper's own arguments, up to the "--" before the program. */
  const head = (caps: WorldCapabilities, hostView: HostView[]) => {
    const argv = wrapArgv(caps, ['ps'], { writable: ['/w'], readable: ['/data'], cwd: '/w', timeoutMs: 1000, hostView });
    return argv.slice(0, argv.indexOf('--'));
  };
  /** The value after each occurrence of a bwrap flag. */
  const after = (argv: string[], flag: string) => argv.flatMap((a, i) => (a === flag ? [argv[i + 1]] : []));

  it('unshare keeps the pid namespace for "pid" and the network for "net", and isolates the rest ("fs" changes nothing: it shows the host\'s tree anyway)', () => {
    expect(head(unshare, [])).toEqual(['/usr/bin/unshare', '-r', '-n', '-m', '--pid', '--fork', '--kill-child', '--mount-proc']);
    expect(head(unshare, ['pid'])).toEqual(['/usr/bin/unshare', '-r', '-n', '-m']);
    expect(head(unshare, ['net'])).toEqual(['/usr/bin/unshare', '-r', '-m', '--pid', '--fork', '--kill-child', '--mount-proc']);
    expect(head(unshare, ['fs'])).toEqual(head(unshare, []));
  });

  it('bwrap without a view builds the new root: a tmpfs, the read paths bound read-only, a fresh /proc, no pid or net namespace of the host', () => {
    const h = head(bwrap, []);
    expect(after(h, '--tmpfs')).toEqual(['/']);
    expect(after(h, '--ro-bind')).toContain('/data');
    expect(after(h, '--proc')).toEqual(['/proc']);
    expect(h).toEqual(expect.arrayContaining(['--unshare-user', '--unshare-pid', '--unshare-net', '--cap-drop']));
  });

  it('bwrap opens only what each view names: "fs" the host\'s tree read-only, "pid" the host\'s pid namespace and /proc, "net" the network', () => {
    const fs = head(bwrap, ['fs']);
    expect(fs).not.toContain('--tmpfs');
    expect(after(fs, '--ro-bind')).toEqual(['/']);
    expect(fs).toEqual(expect.arrayContaining(['--unshare-pid', '--unshare-net', '--proc', '--remount-ro']));
    const pid = head(bwrap, ['pid']);
    expect(pid).not.toContain('--unshare-pid');
    expect(pid).not.toContain('--proc');
    expect(after(pid, '--ro-bind')).toContain('/proc');
    expect(pid).toEqual(expect.arrayContaining(['--tmpfs', '--unshare-net']));
    const net = head(bwrap, ['net']);
    expect(net).not.toContain('--unshare-net');
    expect(net).toEqual(expect.arrayContaining(['--tmpfs', '--unshare-pid', '--proc']));
  });

  it('as root bwrap makes no user namespace, still honours the views, and the program is handed to the sandbox user', () => {
    const argv = wrapArgv(asRoot, ['ps'], { writable: ['/w'], readable: [], cwd: '/w', timeoutMs: 1000, hostView: ['pid'] });
    expect(argv).not.toContain('--unshare-user');
    expect(argv).not.toContain('--unshare-pid');
    expect(argv).toContain('--unshare-net');
    expect(argv.slice(argv.indexOf('--') + 1)).toEqual(expect.arrayContaining(['/usr/bin/setpriv', '--reuid=65534', 'ps']));
  });

  it('at the network-only level a run that shares the network needs no namespace (and clears no bounding set it could not)', () => {
    const net: WorldCapabilities = { ...unshare, level: 'network', dropperPath: '/usr/bin/setpriv' };
    const argv = wrapArgv(net, ['ip', 'addr'], { writable: ['/w'], readable: [], cwd: '/w', timeoutMs: 1000, hostView: ['net'] });
    expect(argv).toEqual(['/usr/bin/setpriv', '--no-new-privs', '--', 'ip', 'addr']);
  });

  it('capture_df and the systemctl tools (fs), load_top and process_find (pid), network (net) and listening_sockets (net, pid) are the only tools that ask for a host view', () => {
    const asking = Object.values(tools).filter((t) => t.host_view?.length).map((t) => [t.name, t.host_view]);
    expect(asking.sort()).toEqual([['capture_df', ['fs']], ['failed_units', ['fs']], ['listening_sockets', ['net', 'pid']], ['load_top', ['pid']], ['network', ['net']], ['process_find', ['pid']], ['unit_status', ['fs']]]);
  });
});

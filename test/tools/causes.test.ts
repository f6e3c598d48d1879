// Causes as the manifests declare them, over outputs that cannot be made on this machine: each
// recorded from the program's own source or documentation (named beside it). The states that can be
// made here run for real in states.test.ts and isolation.test.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toolManifestSchema, type ToolManifest } from '../../src/registry/manifest.js';
import { classifyRun } from '../../src/tools/causes.js';
import { REPO } from '../helpers/root.js';

const tool = (name: string): ToolManifest => toolManifestSchema.parse(JSON.parse(readFileSync(join(REPO, 'manifests/tools', `${name}.json`), 'utf8')));

describe('the shipped tools\' causes', () => {
  it('every shipped tool that reads a source the machine may lack declares why, in words without the program\'s jargon', () => {
    for (const name of ['journal_window', 'kernel_log', 'read_file', 'unit_status', 'failed_units', 'apt_upgradable']) {
      const causes = tool(name).causes ?? [];
      expect(causes.length, name).toBeGreaterThan(0);
      for (const c of causes) expect(c.plain, `${name}.${c.id}`).not.toMatch(/journalctl|systemctl|exit code|stderr|errno|E[A-Z]{3,}/);
    }
    // and none is declared twice
    for (const f of readdirSync(join(REPO, 'manifests/tools'))) {
      const ids = (tool(f.slice(0, -5)).causes ?? []).map((c) => c.id);
      expect(new Set(ids).size, f).toBe(ids.length);
    }
  });

  it('a systemd whose bus cannot be reached is told from one that does not run (systemd 252 src/shared/bus-util.c: "Failed to connect to bus: %m")', () => {
    expect(classifyRun(tool('unit_status'), { exitCode: 1, stdout: '', stderr: 'Failed to connect to bus: No such file or directory\n' }))
      .toMatchObject({ id: 'systemd_bus_unreachable' });
  });

  it('a unit systemd does not know is no failure at all: systemctl show exits 0 with LoadState=not-found (systemctl(1)), and the fact says found: false', () => {
    expect(classifyRun(tool('unit_status'), { exitCode: 0, stdout: 'Id=nosuch.service\nLoadState=not-found\nActiveState=inactive\n', stderr: '' })).toBeNull();
  });

  it('apt\'s lists closed to this user are their own cause (apt-pkg: "Could not open file /var/lib/apt/lists/… - open (13: Permission denied)")', () => {
    expect(classifyRun(tool('apt_upgradable'), { exitCode: 100, stdout: '', stderr: 'E: Could not open file /var/lib/apt/lists/deb.debian.org_debian_dists_bookworm_InRelease - open (13: Permission denied)\n' }))
      .toMatchObject({ id: 'apt_lists_unreadable' });
  });

  it('a run that exits 0 is never given a cause unless the cause names exit code 0', () => {
    for (const f of readdirSync(join(REPO, 'manifests/tools'))) {
      const t = tool(f.slice(0, -5));
      for (const c of t.causes ?? []) {
        if (c.exit?.includes(0)) continue;
        expect(classifyRun({ causes: [c] }, { exitCode: 0, stdout: 'x', stderr: 'No journal files were found. insufficient permissions Permission denied Unable to mkstemp' }), `${t.name}.${c.id}`).toBeNull();
      }
    }
  });
});

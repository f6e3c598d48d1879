// Absent, unreadable and empty are three things (seam §7): each shipped tool's real output on a
// machine in each state, classified into the plain cause its manifest declares, or carried in its
// fact where it still read something. The states are made for real: this machine has no systemd as
// PID 1, no journal, no thermal zone and no wireless interface; a journal is made by journald itself
// (test/fixtures/scripts/make-journal.sh) and bound over /var/log/journal in a private mount
// namespace, readable to its group as on Debian, or closed; the daemon's side runs as root (whose
// programs run as the sandbox user) or as another user, as the service does.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { LedgerEvent } from '../../src/ledger/events.js';
import { readLedger } from '../../src/ledger/ledger.js';
import { parseJob } from '../../src/runtime/job.js';
import { openRuntime } from '../../src/root/runtime.js';
import { describe as describeEvent } from '../../src/cli/show.js';
import { logEntries, readLogLines } from '../../providers/log-lines/index.js';
import { canMakeJournal, isRoot, journalMode, makeJournal, runShipped, whyNoJournal } from '../helpers/machine-state.js';
import { makeRoot, newSession, REPO } from '../helpers/root.js';
import { tempDir } from '../helpers/temp.js';

const journalHere = ['/var/log/journal', '/run/log/journal'].some((d) => existsSync(d) && readdirSync(d).length > 0);
const systemdHere = existsSync('/run/systemd/system');
const thermalHere = existsSync('/sys/class/thermal') && readdirSync('/sys/class/thermal').some((z) => z.startsWith('thermal_zone'));
const ringRestricted = readFileSync('/proc/sys/kernel/dmesg_restrict', 'utf8').trim() === '1';

describe('the journal on this machine', () => {
  it.skipIf(journalHere)('no journal reads "there is no journal on this machine", recorded on the tool_failed event', async () => {
    const rt = await openRuntime(makeRoot('pico-states-'));
    try {
      const job = parseJob({ job: 'job@1', goal: 'errors in the last hour', budget_class: 'attended', plan: [
        { step: 'log', tool: 'journal_window', args: { since: '-1h' }, capability: 'extract@1', schema: 'log_lines@1' },
        { step: 'answer', capability: 'answer@1', schema: 'answer@1', from: ['log'] },
      ] });
      const id = newSession(rt, job);
      await rt.runSession(id);
      const events = readLedger(rt.sessionDir(id));
      const failed = events.find((e): e is Extract<LedgerEvent, { type: 'tool_failed' }> => e.type === 'tool_failed');
      expect(failed?.cause).toEqual({ id: 'no_journal', plain: 'there is no journal on this machine' });
      expect(events.some((e) => e.type === 'fact_added' && e.step === 'log')).toBe(false); // absent is no fact, never an empty one
      // and pico show says the cause in words before the program's own text
      expect(describeEvent(failed!)).toMatch(/^log tool_failed \(there is no journal on this machine\): tool journal_window/);
    } finally {
      await rt.close();
    }
  });
});

describe.skipIf(!canMakeJournal)(`a real journal made here (${canMakeJournal ? 'journald in a private mount namespace' : whyNoJournal})`, () => {
  let journal = '';
  beforeAll(() => {
    journal = makeJournal();
  }, 90_000);

  it('a journal readable to its group gives each line its PRIORITY', () => {
    journalMode(journal, 'systemd-journal');
    const r = runShipped('journal_window', {}, { journal });
    expect(r.error, r.message).toBeUndefined();
    const fact = r.fact!;
    expect(fact).toMatchObject({ source: 'journal', format: 'journal' });
    expect(fact.lines_read).toBeGreaterThan(100);
    // systemctl's "System has not been booted with systemd" went in at err: a failure line by its PRIORITY
    expect((fact.failures as { source: string; level: string }[]).some((l) => l.source === 'systemctl' && l.level === 'err')).toBe(true);
  }, 60_000);

  it('an empty window is empty, not absent', () => {
    journalMode(journal, 'systemd-journal');
    const r = runShipped('journal_window', { since: '2099-01-01' }, { journal });
    expect(r.error).toBeUndefined();
    expect(r.fact).toMatchObject({ source: 'journal', lines_read: 0, failure_count: 0 });
  }, 60_000);

  it('a journal you may not read names the group to join', () => {
    journalMode(journal, 'root');
    const r = runShipped('journal_window', { since: 'today' }, { journal });
    expect(r.error).toBe('tool_failed');
    expect(r.cause).toEqual({ id: 'journal_not_readable', plain: 'you may not read the journal (join the group systemd-journal or adm)' });
  }, 60_000);

  it.skipIf(!isRoot)('the service\'s own user, outside the journal\'s groups, is told it sees only its own messages', () => {
    journalMode(journal, 'root');
    // uid 4242 wrote one line into its own user journal when the journal was made
    const r = runShipped('journal_window', {}, { journal, uid: 4242 });
    expect(r.uid).toBe(4242);
    expect(r.error).toBe('tool_failed');
    expect(r.cause?.id).toBe('journal_only_own');
    expect(r.cause?.plain).toMatch(/join the group systemd-journal or adm/);
  }, 60_000);

  it.skipIf(!isRoot || !existsSync('/usr/bin/unshare'))('the same user on a box without bubblewrap (unshare maps it to root in a user namespace, where journalctl gives no hint) is told the same', () => {
    journalMode(journal, 'root');
    const r = runShipped('journal_window', {}, { journal, uid: 4242, bwrapHidden: true });
    expect(r.uid).toBe(4242);
    expect(r.error).toBe('tool_failed');
    expect(r.cause?.id).toBe('journal_only_own');
  }, 60_000);

  it.skipIf(!isRoot || !existsSync('/usr/bin/unshare'))('kernel_log for that user without bubblewrap does not take the unreadable system journal for a kernel that said nothing', () => {
    journalMode(journal, 'root');
    const r = runShipped('kernel_log', {}, { journal, uid: 4242, bwrapHidden: true });
    expect(r.uid).toBe(4242);
    // it falls back to the ring buffer: read (dmesg open to all) or closed, never an empty kernel journal
    if (r.error) expect(r.cause?.id).toBe('kernel_unreadable');
    else expect(r.output).toContain('== kernel ring');
  }, 60_000);

  it.skipIf(!isRoot || !existsSync('/usr/bin/unshare'))('unit_log for that user, with bubblewrap or without, says the system journal was not read rather than that the unit logged nothing', () => {
    journalMode(journal, 'root');
    for (const bwrapHidden of [false, true]) {
      const r = runShipped('unit_log', { unit: 'systemd-journald.service' }, { journal, uid: 4242, bwrapHidden });
      expect(r.uid).toBe(4242);
      expect(r.error, r.message).toBeUndefined();
      expect(r.fact, `bubblewrap ${bwrapHidden ? 'hidden' : 'there'}`).toMatchObject({ journal: 'unreadable', lines: [] });
    }
  }, 60_000);

  it('a boot the journal never saw, and a time journalctl cannot read, are said as such', () => {
    journalMode(journal, 'systemd-journal');
    expect(runShipped('journal_window', { boot: -1 }, { journal }).cause).toEqual({ id: 'no_such_boot', plain: 'the journal keeps no record of that boot' });
    expect(runShipped('journal_window', { since: '25:99' }, { journal }).cause).toEqual({ id: 'bad_time', plain: 'the time window could not be read as a time' });
  }, 60_000);

  it('kernel questions read the kernel: kernel_log reads the journal\'s kernel messages with their levels', () => {
    journalMode(journal, 'systemd-journal');
    const r = runShipped('kernel_log', {}, { journal });
    expect(r.error, r.message).toBeUndefined();
    expect(r.fact).toMatchObject({ source: 'kernel', format: 'journal' });
    // every line is the kernel ring's (the kernel's own, or a program that wrote to /dev/kmsg), each at its level
    const entries = logEntries(r.output!).entries;
    expect(entries.length).toBeGreaterThan(100);
    expect(entries.filter((e) => e.source === 'kernel').length).toBeGreaterThan(100);
    expect(entries.find((e) => e.source === 'kernel')?.text).toMatch(/^Linux version /);
    expect(entries.every((e) => e.level !== null)).toBe(true);
  }, 60_000);
});

describe('the kernel ring', () => {
  it('kernel questions read the kernel ring where the journal cannot be read: the tool\'s own script falls back to dmesg -r', () => {
    // as root here, outside the world, with no journal: the ring is readable (the world's sandbox user may not read it while kernel.dmesg_restrict is 1)
    if (journalHere || !isRoot) return;
    const manifest = JSON.parse(readFileSync(join(REPO, 'manifests/tools/kernel_log.json'), 'utf8')) as { command: string[] };
    const tmp = tempDir('pico-ring-');
    const out = execFileSync(manifest.command[0]!, [...manifest.command.slice(1, 4)], { env: { PATH: '/usr/bin:/bin', TMPDIR: tmp }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    expect(out.startsWith('== kernel ring\n')).toBe(true);
    const fact = readLogLines(out);
    expect(fact).toMatchObject({ source: 'kernel', format: 'kernel_ring' });
    expect(fact.lines_read).toBeGreaterThan(10);
    expect(fact.lines.every((l) => l.level !== null)).toBe(true);
  });

  it.skipIf(journalHere || !isRoot)('a level asked of the ring is read from each record\'s own <N>: warning keeps exactly the ring\'s emerg to warning records', () => {
    // as root, outside the world: dmesg itself cannot filter levels with -r unless it reads /dev/kmsg,
    // so the script keeps the records whose <N> (facility * 8 + level) says warning or worse
    const manifest = JSON.parse(readFileSync(join(REPO, 'manifests/tools/kernel_log.json'), 'utf8')) as { command: string[] };
    const env = { PATH: '/usr/bin:/bin', TMPDIR: tempDir('pico-ring-') };
    const raw = execFileSync('dmesg', ['-r'], { env, encoding: 'utf8' });
    const want = raw.split('\n').filter((l) => { const m = /^<(\d+)>/.exec(l); return m !== null && Number(m[1]) % 8 <= 4; }).length;
    const out = execFileSync(manifest.command[0]!, [...manifest.command.slice(1, 4), '--priority=warning'], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const fact = readLogLines(out);
    expect(fact.lines_read).toBe(want);
    expect(fact.lines.every((l) => ['emerg', 'alert', 'crit', 'err', 'warning'].includes(l.level!))).toBe(true);
  });

  it.skipIf(journalHere || !ringRestricted || !isRoot)('with no journal and the ring closed, a kernel read at a level still says both in one cause (not dmesg\'s own complaint)', () => {
    const r = runShipped('kernel_log', { priority: 'err' });
    expect(r.error).toBe('tool_failed');
    expect(r.cause?.id).toBe('kernel_unreadable_no_journal');
  }, 60_000);

  it.skipIf(journalHere || !ringRestricted || !isRoot)('with no journal and the ring closed to the sandbox user, kernel_log says both in one cause', () => {
    const r = runShipped('kernel_log', {});
    expect(r.error).toBe('tool_failed');
    expect(r.cause).toEqual({ id: 'kernel_unreadable_no_journal', plain: 'there is no journal on this machine, and the kernel\'s ring buffer is closed to this user (kernel.dmesg_restrict is on)' });
  }, 60_000);
});

describe('units, thermal zones, the network', () => {
  it.skipIf(systemdHere)('with no systemd as PID 1, unit_status and failed_units say "this machine does not run systemd, so unit states cannot be read"', () => {
    for (const [tool, args] of [['unit_status', { unit: 'nginx.service' }], ['failed_units', {}]] as const) {
      const r = runShipped(tool, args);
      expect(r.error, tool).toBe('tool_failed');
      expect(r.cause, tool).toEqual({ id: 'no_systemd', plain: 'this machine does not run systemd, so unit states cannot be read' });
    }
  }, 60_000);

  it.skipIf(systemdHere)('with no systemd, a question about a service still reads its processes and sockets: no replan swaps them for system-wide reads of the same absent source', async () => {
    const rt = await openRuntime(makeRoot('pico-states-'));
    try {
      const id = newSession(rt, parseJob({ job: 'job@1', goal: 'is nginx running?', budget_class: 'attended' }, 'test'));
      await rt.runSession(id);
      const events = readLedger(rt.sessionDir(id));
      const failed = events.find((e): e is Extract<LedgerEvent, { type: 'tool_failed' }> => e.type === 'tool_failed' && e.step === 'unit_status');
      expect(failed?.cause?.id).toBe('no_systemd');
      expect(events.filter((e) => e.type === 'plan_created')).toHaveLength(1); // no replan
      const facts = events.filter((e) => e.type === 'fact_added').map((e) => (e as { step: string }).step);
      expect(facts).toEqual(expect.arrayContaining(['process_find', 'listening_sockets']));
      expect(events.some((e) => 'step' in e && (e.step === 'failed_units' || (e.type === 'step_started' && e.tool === 'failed_units')))).toBe(false);
    } finally {
      await rt.close();
    }
  }, 120_000);

  it.skipIf(thermalHere)('no thermal zone is said in the fact, never read as a temperature', () => {
    const r = runShipped('thermal', {});
    expect(r.error).toBeUndefined();
    expect(r.fact).toMatchObject({ zones: [], max_celsius: null, state: null });
    expect(r.fact!.note).toMatch(/no readable thermal zone/);
  }, 60_000);

  it('a machine without a wireless interface lists only its wired and virtual ones (none named wl…)', () => {
    const wireless = readdirSync('/sys/class/net').filter((n) => existsSync(join('/sys/class/net', n, 'wireless')));
    const r = runShipped('network', {});
    expect(r.error).toBeUndefined();
    const names = (r.fact!.interfaces as { name: string }[]).map((i) => i.name);
    expect(names.filter((n) => n.startsWith('wl'))).toEqual(wireless.filter((n) => n.startsWith('wl')));
    if (wireless.length === 0) expect(names.some((n) => n.startsWith('wl'))).toBe(false);
  }, 60_000);

  it('a file that is not there names the path as absent, not as empty', () => {
    const r = runShipped('read_file', { path: '/var/log/pico-no-such.log' });
    expect(r.error).toBe('tool_failed');
    expect(r.cause).toEqual({ id: 'no_such_path', plain: 'there is no such file or folder' });
  }, 60_000);
});

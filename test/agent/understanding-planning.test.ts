// Planning, second pass (issue 35; issue 30 item 9): a part no playbook serves is planned from the
// tools that cover its subject; a playbook is selected by the part's subject, never a word beside
// it; every request to change something no tool changes is declined, and a prune in other words
// keeps its count and waits for approval. Real root (pico init), real runtime, plan-only sessions
// and, for destructive plans, whole sessions that stop for approval.
import { describe, expect, it } from 'vitest';
import type { LedgerEvent } from '../../src/ledger/events.js';
import { JARGON } from '../../src/eval/goals/score.js';
import { goalSessions, type PlanCreated } from '../helpers/goal-session.js';

const plan = goalSessions();
const tools = (c: PlanCreated | undefined) => (c?.steps ?? []).map((s) => s.tool).filter(Boolean);
const gapOf = (events: LedgerEvent[]) => events.find((e): e is Extract<LedgerEvent, { type: 'capability_gap' }> => e.type === 'capability_gap');

describe('a part no playbook serves', () => {
  it('a question no playbook serves is planned from the tools that cover its subject, with the arguments it names', async () => {
    const stat = (await plan('stat /etc/passwd')).created!;
    expect(stat).toMatchObject({ source: 'retrieval', provider: 'retrieval-planner' });
    expect(stat.steps[0]).toMatchObject({ tool: 'file_stat', args: { path: '/etc/passwd' } });
    expect(stat.parts![0]).toMatchObject({ source: 'retrieval', matched: ['stat'] });
    // a command line's own flags are its arguments
    const journal = (await plan('journalctl -u mosquitto --since today')).created!;
    expect(journal.steps.find((s) => s.tool === 'journal_window')).toMatchObject({ args: { unit: 'mosquitto.service', since: 'today' } });
    expect((await plan('is /boot/firmware in the list of mounts')).created!.steps[0]).toMatchObject({ tool: 'capture_df' });
  });

  it('at most three tools are planned for a part, and never one whose required argument the part does not give', async () => {
    for (const g of ['how many cpu cores does it have', 'stat /etc/passwd', 'what happened at 10:30']) {
      const c = (await plan(g)).created!;
      expect(c.steps.filter((s) => s.tool).length, g).toBeLessThanOrEqual(3);
      expect(tools(c), g).not.toContain('unit_status');
    }
  });

  it('a part whose subject holds a word nothing here knows is not planned from a neighbouring word', async () => {
    for (const g of ['what gpio pins are in use', 'what time is sunset today']) expect((await plan(g)).created, g).toBeUndefined();
  });
});

describe('a playbook is selected by the subject', () => {
  it('a word outside the subject never selects a playbook', async () => {
    for (const g of ["what's the load capacity of my shelf", 'what temperature should my fridge be at', 'how hot is it outside', 'when is the next kernel release', 'tell me about the history of the linux kernel']) {
      const { created, events } = await plan(g);
      expect(created, g).toBeUndefined();
      expect(gapOf(events)?.plain, g).toMatch(/^I could not check "/);
    }
  });

  it('the words that selected a playbook are recorded, with the subject', async () => {
    const { created } = await plan('is the sd card full');
    expect(created!.parts![0]).toMatchObject({ subject: 'sd card', source: 'playbook', playbooks: expect.arrayContaining(['disk_full']) });
    expect(created!.parts![0]!.matched!.length).toBeGreaterThan(0);
  });

  it('an out-of-scope question never gets system figures: a question about the world in general is declined in plain words', async () => {
    for (const g of ['explain what swap memory is', 'how much memory does a pi 5 come with', "what's a good ssd to buy for a pi", 'pip says "error: externally-managed-environment"']) {
      const r = await plan(g, true);
      expect(r.outcome, g).toBe('declined');
      expect(r.answer, g).not.toMatch(JARGON);
    }
  });

  it('a quoted message is evidence, not a request: the trouble it names is checked', async () => {
    expect(tools((await plan('dmesg says "Under-voltage detected!", what does that mean')).created)).toContain('thermal');
    expect(tools((await plan('getting "No space left on device" when saving')).created)).toContain('capture_df');
    expect((await plan('docker says "Cannot connect to the Docker daemon", is it running')).created!.steps[0]).toMatchObject({ tool: 'unit_status', args: { unit: 'docker.service' } });
  });
});

describe('arguments', () => {
  it('the window a part names is the window each of its calls reads, recorded in words', async () => {
    const prev = (await plan('what went wrong during the previous boot')).created!;
    expect(prev.steps[0]).toMatchObject({ tool: 'journal_window', args: { boot: -1 } });
    expect(prev.parts![0]!.window).toBe('the boot before this one');
    const today = (await plan('did several daemons crash today')).created!;
    for (const s of today.steps.filter((x) => x.tool === 'journal_window')) expect(s.args).toMatchObject({ since: 'today' });
    expect(today.steps.every((s) => s.args.unit === undefined)).toBe(true);
  });

  it('a window that names a day is read against the time the ledger recorded for the goal', async () => {
    const { events, created } = await plan('show the logs from 9 to 11 yesterday');
    const asked = new Date(events.find((e) => e.type === 'user_input')!.t);
    const day = new Date(asked.getFullYear(), asked.getMonth(), asked.getDate() - 1);
    const d = `${day.getFullYear()}-${String(day.getMonth() + 1).padStart(2, '0')}-${String(day.getDate()).padStart(2, '0')}`;
    expect(created!.steps[0]).toMatchObject({ tool: 'journal_window', args: { since: `${d} 09:00`, until: `${d} 11:00` } });
  });

  it('a selection is recorded with its ask, and the read whose facts can hold it is planned', async () => {
    const member = (await plan('is python3 in the process list')).created!;
    expect(member.parts![0]!.ask).toEqual({ kind: 'member', name: 'python3', noun: 'process' });
    expect(tools(member)).toContain('load_top');
    const failed = (await plan('is bluetooth.service among the failed units')).created!;
    expect(tools(failed)).toContain('failed_units');
    expect(failed.parts![0]!.ask).toMatchObject({ kind: 'member', name: 'bluetooth.service', noun: 'unit' });
    expect((await plan('how many updates are pending')).created!.parts![0]!.ask).toEqual({ kind: 'count', noun: 'package' });
  });
});

describe('requests to change something', () => {
  it('a request to delete a named path is declined, never answered by a read', async () => {
    for (const g of ['delete /var/log/syslog.1', 'chmod 644 /etc/hosts', 'truncate /var/log/daemon.log', 'copy /etc/nginx/nginx.conf to my home folder', 'rotate the logs in /var/log now', 'mask bluetooth.service']) {
      const r = await plan(g, true);
      expect(r.created, g).toBeUndefined();
      expect(r.outcome, g).toBe('declined');
      expect(r.answer, g).toMatch(/^I can't /);
    }
  });

  it('a request beside a question is declined for its part, and the act is recorded', async () => {
    const { created } = await plan('delete /tmp/cache.db and tell me how much disk is free');
    expect(created!.parts![0]).toMatchObject({ steps: [], act: { verb: 'delete', object: '/tmp/cache.db' } });
    expect(created!.parts![0]!.unchecked).toMatch(/^I can't delete \/tmp\/cache\.db/);
    expect(created!.parts![1]!.steps).toContain('capture_df');
  });

  it('prune in other words keeps its count and waits for approval', async () => {
    for (const [g, args] of [
      ['get rid of all but the 3 newest files in the log archive', { dir: 'examples/archive', keep: 3 }],
      ['only keep the latest 7 archived logs, throw away the rest', { dir: 'examples/archive', keep: 7 }],
      ['remove older archived logs so only 6 remain', { keep: 6 }],
      ['wipe the old logs in examples/archive, leaving 2', { dir: 'examples/archive', keep: 2 }],
      ['thin out /srv/logs/archive to the newest 8', { dir: '/srv/logs/archive', keep: 8 }],
    ] as const) {
      const r = await plan(g, true);
      expect(r.outcome, g).toBe('waiting');
      expect(r.events.find((e) => e.type === 'approval_requested'), g).toMatchObject({ tool: 'prune_archive', args });
    }
  });

  it('a destructive request that cannot be mapped says which request would work', async () => {
    const r = await plan('empty /tmp', true);
    expect(r.outcome).toBe('declined');
    expect(r.answer).toMatch(/^I can't empty \/tmp: no tool on this machine does that\. A change I can make, once you approve it: "prune the log archive, keep the 3 newest"\./);
    expect(r.answer).not.toMatch(JARGON);
  });
});

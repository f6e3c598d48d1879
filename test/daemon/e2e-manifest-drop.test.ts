/**
 * Issue 33, "Done when": "A test drops a new tool manifest into a running daemon's root and the
 * next goal-only job uses it, with no signal; a broken manifest dropped the same way gets its
 * reason file and the next job still runs on the old set; both with chokidar in event mode and in
 * polling mode." The real daemon, its real session worker, real files; no SIGHUP is ever sent.
 * The new tool is useful only with a playbook that names it, so the drop is a tool and a
 * playbook (its intent: "zebra notes"); the goal-only job asks for the zebra notes.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { initRoot } from '../../src/root/init.js';
import { tempRoot } from './helpers.js';
import { finished, pico, picoAsync, startDaemon, stopDaemon, type RunningDaemon } from './spawn.js';

/** Drop a job file (written aside, renamed in) and wait for its session to finish; returns its id. */
async function runJob(d: RunningDaemon, root: string, name: string, job: unknown): Promise<string> {
  const inbox = join(root, 'sessions', 'inbox');
  writeFileSync(join(inbox, `.${name}.tmp`), JSON.stringify(job));
  renameSync(join(inbox, `.${name}.tmp`), join(inbox, `${name}.json`));
  const claimed = await d.waitFor((l) => l.event === 'claimed' && l.file === `${name}.json`, 30_000);
  await d.waitFor(finished(String(claimed.session)), 60_000);
  return String(claimed.session);
}

/** The tools a session's ledger started steps with, and its composition hash. */
function ledgerOf(root: string, id: string): { tools: string[]; composition: string } {
  const events = readFileSync(join(root, 'sessions', id, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; tool?: string; hash?: string });
  return { tools: events.filter((e) => e.type === 'step_started' && e.tool).map((e) => e.tool!), composition: events[0]!.hash! };
}

const ZEBRA_JOB = { job: 'job@1', goal: 'Show the zebra notes in examples/data/syslog.txt', budget_class: 'interactive' };
const DISK_JOB = { job: 'job@1', goal: 'why is the disk full?', budget_class: 'interactive', plan: [{ step: 's1', tool: 'read_file', args: { path: 'examples/data/df.txt' }, capability: 'extract@1', schema: 'log_summary@2' }] };

/** A root whose daemon watches in `mode`, and the new tool and playbook made from the shipped read_file ones. */
function rootFor(mode: 'events' | 'polling'): { root: string; tool: string; playbook: string } {
  const root = tempRoot(`pico-e2e-drop-${mode}-`);
  initRoot(root);
  writeFileSync(join(root, 'settings.json'), JSON.stringify({ settings: 'settings@1', watch: mode, watch_poll_ms: 200 }));
  const t = JSON.parse(readFileSync(join(root, 'manifests', 'tools', 'read_file.json'), 'utf8')) as Record<string, unknown>;
  const tool = JSON.stringify({ ...t, name: 'read_notes', description: 'Read the zebra notes file and summarise its errors.', when: 'zebra notes' }, null, 2);
  const p = JSON.parse(readFileSync(join(root, 'manifests', 'playbooks', 'read_log.json'), 'utf8')) as Record<string, unknown>;
  const playbook = JSON.stringify({ ...p, id: 'zebra_notes', description: 'Read the zebra notes.', intent: ['zebra notes', 'zebra'], steps: [{ tool: 'read_notes', args: { path: '{path}' } }] }, null, 2);
  return { root, tool, playbook };
}

describe.each(['events', 'polling'] as const)('manifests dropped into a running daemon, chokidar in %s mode', (mode) => {
  it("a tool manifest dropped into a running daemon's root is used by the next goal-only job, with no signal", async () => {
    const { root, tool, playbook } = rootFor(mode);
    const d = startDaemon(root);
    await d.waitFor((l) => l.event === 'ready');
    const watching = await d.waitFor((l) => l.event === 'manifest_watch' && l.mode !== undefined);
    expect(watching.mode).toBe(mode);
    await sleep(1000); // the check at start is over

    const before = await runJob(d, root, 'zebra-before', ZEBRA_JOB);
    expect(ledgerOf(root, before).tools).not.toContain('read_notes');

    // the tool written in place, slowly (the watch waits until it stops growing); the playbook renamed in
    const toolPath = join(root, 'manifests', 'tools', 'read_notes.json');
    writeFileSync(toolPath, tool.slice(0, 40));
    for (let i = 40; i < tool.length; i += 200) {
      await sleep(60);
      writeFileSync(toolPath, tool.slice(0, i + 200));
    }
    writeFileSync(join(root, 'manifests', 'playbooks', '.zebra_notes.json.tmp'), playbook);
    renameSync(join(root, 'manifests', 'playbooks', '.zebra_notes.json.tmp'), join(root, 'manifests', 'playbooks', 'zebra_notes.json'));
    const changed = await d.waitFor((l) => l.event === 'manifests_changed' && (l.added as string[]).includes('manifests/playbooks/zebra_notes.json') && (l.added as string[]).concat(l.changed as string[]).includes('manifests/tools/read_notes.json'), 30_000);
    expect(changed.level).toBe(30);
    expect(d.lines.some((l) => l.event === 'manifest_refused')).toBe(false); // the half-written tool was never checked

    const after = await runJob(d, root, 'zebra-after', ZEBRA_JOB);
    const l = ledgerOf(root, after);
    expect(l.tools).toContain('read_notes');
    expect(l.composition).not.toBe(ledgerOf(root, before).composition);
    // the session's composition document records what ran: the new tool and playbook are in it
    const doc = readFileSync(join(root, 'sessions', after, 'composition.json'), 'utf8');
    expect(doc).toContain('read_notes');
    expect(doc).toContain('zebra_notes');
    expect(readFileSync(join(root, 'sessions', before, 'composition.json'), 'utf8')).not.toContain('read_notes');
    expect(d.lines.some((x) => x.event === 'reloaded')).toBe(false); // no SIGHUP
    await stopDaemon(d);
    // replay runs each session on the composition it recorded: the one before the drop as well as the one after
    for (const id of [before, after]) {
      const r = await picoAsync(['replay', id, '--root', root]);
      expect(r.stdout, r.stderr).toMatch(/^identical: /);
    }
  }, 300_000);

  it('a broken manifest dropped the same way gets its reason file and the next job runs on the old set', async () => {
    const { root, tool } = rootFor(mode);
    const d = startDaemon(root);
    await d.waitFor((l) => l.event === 'ready');
    await d.waitFor((l) => l.event === 'manifest_watch' && l.mode !== undefined);
    await sleep(1000);
    const before = await runJob(d, root, 'disk-before', DISK_JOB);

    // a typo that must never widen a boundary: an unknown key
    const broken = { ...(JSON.parse(tool) as Record<string, unknown>), name: 'broken_tool', secuirty: 'none' };
    writeFileSync(join(root, 'manifests', 'tools', '.broken_tool.json.tmp'), JSON.stringify(broken, null, 2));
    renameSync(join(root, 'manifests', 'tools', '.broken_tool.json.tmp'), join(root, 'manifests', 'tools', 'broken_tool.json'));
    const refused = await d.waitFor((l) => l.event === 'manifest_refused' && l.file === 'manifests/tools/broken_tool.json', 30_000);
    expect(refused.level).toBe(50);
    const reasonFile = join(root, 'manifests', 'rejected', 'tools', 'broken_tool.json.reason.json');
    const reason = JSON.parse(readFileSync(reasonFile, 'utf8')) as { file: string; problems: { path: string; message: string; fix: string }[]; in_force: string };
    expect(reason.file).toBe('manifests/tools/broken_tool.json');
    expect(reason.problems[0]!.message).toMatch(/unknown key "secuirty"/);
    expect(reason.problems[0]!.fix).toMatch(/did you mean "security"/);
    expect(reason.in_force).toMatch(/nothing/);
    expect(existsSync(join(root, 'manifests', 'tools', 'broken_tool.json'))).toBe(true); // left where its writer put it

    const status = JSON.parse(pico(['status', '--root', root, '--json']).stdout) as { flags: { flag: string; problem: string }[] };
    expect(status.flags.find((f) => f.flag === 'refused_manifest')?.problem).toMatch(/broken_tool\.json was refused/);

    const after = await runJob(d, root, 'disk-after', DISK_JOB);
    expect(ledgerOf(root, after).composition).toBe(ledgerOf(root, before).composition); // the old set, exactly
    expect(JSON.parse(readFileSync(join(root, 'sessions', after, 'result.json'), 'utf8')).outcome).toBe('answered');

    // removed: the refusal is gone with it, and nothing else changed
    rmSync(join(root, 'manifests', 'tools', 'broken_tool.json'));
    for (let i = 0; i < 600 && existsSync(join(root, 'manifests', 'rejected')); i++) await sleep(100);
    expect(existsSync(reasonFile)).toBe(false);
    expect(existsSync(join(root, 'manifests', 'rejected'))).toBe(false);
    await stopDaemon(d);
  }, 300_000);
});

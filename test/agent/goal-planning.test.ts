// Planning reads the goal once (design §12, issue 26): every part planned, requests to act only
// through a tool that makes that change, and what nothing serves said in plain words. Real root
// (pico init), real runtime, plan-only sessions and, for a destructive plan, a whole session that
// stops for approval.
import { describe, expect, it } from 'vitest';
import type { LedgerEvent } from '../../src/ledger/events.js';
import { JARGON } from '../../src/eval/goals/score.js';
import { goalSessions, type PlanCreated } from '../helpers/goal-session.js';

const plan = goalSessions();
const tools = (c: PlanCreated | undefined) => (c?.steps ?? []).map((s) => s.tool).filter(Boolean);

describe('a goal read once, planned part by part', () => {
  it('a goal with two questions is planned for both, each step recorded under its part', async () => {
    const { created } = await plan('Why is the disk full and is the CPU hot?');
    expect(created!.parts!.map((p) => p.text)).toEqual(['Why is the disk full', 'is the CPU hot']);
    expect(created!.parts![0]!.steps).toContain('capture_df');
    expect(created!.parts![1]!.steps).toContain('thermal');
    expect(tools(created)).toEqual(expect.arrayContaining(['capture_df', 'thermal']));
  });

  it('misspelt and slangy goals find the tools a person would use', async () => {
    expect(tools((await plan('why is it so slooow')).created)).toContain('load_top');
    expect(tools((await plan('is the pi low on memroy')).created)).toContain('memory_usage');
    expect(tools((await plan('dsik usage')).created)).toContain('capture_df');
    expect((await plan('is mosquitto still alive')).created!.steps[0]).toMatchObject({ tool: 'unit_status', args: { unit: 'mosquitto.service' } });
  });

  it('a unit name keeps its case', async () => {
    expect((await plan('did pihole-FTL crash again')).created!.steps[0]!.args).toEqual({ unit: 'pihole-FTL.service' });
  });

  it('the window a part names is read into the tool and recorded in words', async () => {
    const { created } = await plan('errors in the past half hour?');
    expect(created!.steps[0]).toMatchObject({ tool: 'journal_window', args: { since: '30 min ago', priority: 'err' } });
    expect(created!.parts![0]!.window).toBe('the last 30 minutes');
  });

  it('a part nothing here serves is recorded as not checked, in plain words, beside the parts that are', async () => {
    const { created } = await plan('is the disk full and whats the weather tomorrow');
    expect(tools(created)).toContain('capture_df');
    const weather = created!.parts![1]!;
    expect(weather.steps).toEqual([]);
    expect(weather.unchecked).toMatch(/could not check "whats the weather tomorrow".*weather/);
    expect(weather.unchecked).not.toMatch(JARGON);
  });

  it('a question about something no tool looks at is not answered with a neighbouring fact', async () => {
    for (const g of ['how many docker containers are running', 'who is logged in right now', 'what is the capital of australia', 'is my nas mounted over nfs healthy', "what's the wifi password"]) {
      expect((await plan(g)).created, g).toBeUndefined();
    }
  });

  it('a question about the size of a thing no tool measures is declined, not answered with df ("how much space do the journal logs take up")', async () => {
    expect((await plan('how big is the apt cache')).created).toBeUndefined();
    for (const g of ['how much space do the journal logs take up', 'how fast is my internet']) {
      const { created, events } = await plan(g);
      expect(created, g).toBeUndefined();
      const gap = events.find((e): e is Extract<LedgerEvent, { type: 'capability_gap' }> => e.type === 'capability_gap');
      expect(gap?.plain, g).toMatch(/no tool here measures/);
    }
    // stat's size of a folder is its entry, not what it holds: with no du tool here, the space a folder takes is declined
    const folder = await plan('How much space does the folder /var/log take?');
    expect(folder.created).toBeUndefined();
    expect(folder.events.find((e): e is Extract<LedgerEvent, { type: 'capability_gap' }> => e.type === 'capability_gap')?.plain).toMatch(/no tool here measures the space a folder takes/);
    expect(tools((await plan('who owns the folder /srv')).created)).toEqual(['file_stat']);
    expect(tools((await plan('how big is my sd card')).created)).toContain('capture_df');
    expect(tools((await plan('how big is /home/pi/backup.tar')).created)).toContain('file_stat');
  });

  it('a question about the SD card\'s health is declined, not answered with df; the disk being full is still df\'s', async () => {
    for (const g of ['is my sd card healthy', 'is the sd card dying', 'is my internet slow']) {
      const { created, events } = await plan(g);
      expect(created, g).toBeUndefined();
      expect(events.find((e): e is Extract<LedgerEvent, { type: 'capability_gap' }> => e.type === 'capability_gap')?.plain, g).toMatch(/no tool here can tell that of the/);
    }
    for (const [g, tool] of [['is the disk full', 'capture_df'], ['is the cpu hot', 'thermal'], ['is the network down', 'network'], ['is my memory low', 'memory_usage']] as const) {
      expect(tools((await plan(g)).created), g).toContain(tool);
    }
  });

  it('a question about the machine itself gets the health check; an OOM question reads the journal', async () => {
    expect(tools((await plan("how's my raspberry pi doing")).created)).toEqual(expect.arrayContaining(['capture_df', 'memory_usage', 'thermal', 'failed_units']));
    expect(tools((await plan('was there an out of memory kill recently')).created)).toContain('journal_window');
  });

  it('a playbook about the unit a part names goes before a general one: "did postgresql fail" checks that unit', async () => {
    expect((await plan('did postgresql fail')).created!.steps[0]).toMatchObject({ tool: 'unit_status', args: { unit: 'postgresql.service' } });
  });

  it('a log file the owner names is read and summarised', async () => {
    expect((await plan('read /var/log/syslog for me')).created!.steps[0]).toMatchObject({ tool: 'read_file', args: { path: '/var/log/syslog' } });
  });

  it('every part of a three-part question is planned: "check temps, then tell me if wifi is connected, also updates?"', async () => {
    const { created } = await plan('check temps, then tell me if wifi is connected, also updates?');
    expect(created!.parts!.map((p) => p.steps.length > 0)).toEqual([true, true, true]);
    expect(tools(created)).toEqual(expect.arrayContaining(['thermal', 'network', 'apt_upgradable']));
  });

  it('an old decline stays one: nothing here answers a question whose subject it does not know', async () => {
    for (const g of ['is my printer out of ink']) {
      expect((await plan(g)).created, g).toBeUndefined();
    }
  });
});

describe('requests to act', () => {
  it('"restart nginx" is declined: no read-only stand-in is planned', async () => {
    const { created, events } = await plan('can you restart nginx for me');
    expect(created).toBeUndefined();
    const gap = events.find((e) => e.type === 'capability_gap');
    expect(gap).toMatchObject({ capability: 'plan@1' });
    expect((gap as { error: string }).error).toMatch(/restart "nginx"/);
  });

  it('vacuuming the journal is not the archive prune: declined, not sent for approval', async () => {
    expect((await plan('vacuum the journal down to 100M')).created).toBeUndefined();
    expect((await plan('delete /tmp/cache.db')).created).toBeUndefined();
  });

  it('a count put as what is left is the count sent for approval ("down to 5 files"), never the default', async () => {
    expect((await plan('could you prune the log archive down to 5 files')).created!.steps[0]).toMatchObject({ tool: 'prune_archive', args: { keep: 5 } });
    expect((await plan('delete everything in the archive except the newest 2')).created!.steps[0]).toMatchObject({ tool: 'prune_archive', args: { keep: 2 } });
  });

  it('a request to prune the archive waits for a person, with the count and folder asked', async () => {
    const r = await plan('clean up the old rotated logs in the archive but leave the 2 most recent', true);
    expect(r.outcome).toBe('waiting');
    const asked = r.events.find((e) => e.type === 'approval_requested');
    expect(asked).toMatchObject({ tool: 'prune_archive', args: { dir: 'examples/archive', keep: 2 } });
    expect(r.events.some((e) => e.type === 'tool_output' && (e as { step: string }).step === 'prune_archive')).toBe(false);
  });
});

describe('what the answer says (whole sessions, real tools)', () => {
  it('"restart nginx" is declined in plain words, naming what can be checked instead', async () => {
    const r = await plan('can you restart nginx for me', true);
    expect(r.outcome).toBe('declined');
    expect(r.answer).toMatch(/^I can't restart nginx: no tool on this machine does that\. I can check instead: "is nginx running"/);
    expect(r.answer).not.toMatch(JARGON);
    // the technical reason stays in the ledger
    expect(r.events.find((e) => e.type === 'declined')).toMatchObject({ reason: expect.stringMatching(/plan@1/) });
  });

  it('an out-of-scope question is declined in plain words', async () => {
    const r = await plan("what's the weather like in london", true);
    expect(r.answer).toBe(`I could not check "what's the weather like in london": nothing on this machine looks at weather or london.`);
  });

  it('a goal with a part nothing serves is partial, and the answer names that part', async () => {
    const r = await plan('how much ram is free and whats the weather tomorrow', true);
    expect(r.outcome).toBe('partial');
    expect(r.answer).toMatch(/Memory is [\d.]+% used/);
    expect(r.answer).toMatch(/I could not check "whats the weather tomorrow": nothing on this machine looks at weather or tomorrow\./);
    expect(r.answer).not.toMatch(/partial answer — missing|@1/);
  });

  it('a goal with two questions is answered for both', async () => {
    const r = await plan('how much ram is free, and how full is the disk?', true);
    expect(r.answer).toMatch(/Memory is [\d.]+% used/);
    expect(r.answer).toMatch(/is \d+% full/);
  });
});

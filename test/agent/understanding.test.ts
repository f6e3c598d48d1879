// Goal reading, second pass (issue 35): entities strictly typed (a unit is never a quantifier, a
// number, a clock time or a date), windows with both ends and boots by offset, what a part asks of
// the facts, quotations as evidence, and the fragments that belong to a part. Read against the
// shipped lexicon, tools and playbooks; every window against a fixed "now" (Wednesday 4 March
// 2026, 15:00 local), as planning passes the time the ledger recorded for the goal.
import { describe, expect, it } from 'vitest';
import { actionIn, askIn, bootIn, read, understand, unitIn, windowIn } from '../../src/agent/goal/index.js';
import { shippedGoalContext } from '../helpers/goal.js';

const ctx = shippedGoalContext();
const NOW = new Date(2026, 2, 4, 15, 0);
const parts = (goal: string) => understand(goal, ctx, NOW).parts;
const window = (text: string, now = NOW) => windowIn(text, now);

describe('units', () => {
  it('a quantifier is never a unit', () => {
    for (const g of ['are many services failing', 'did several daemons crash today', 'did a few things fail overnight', 'are most services running fine', 'is every service up']) {
      expect(parts(g)[0]!.entities.unit, g).toBeNull();
    }
    // "both" is not a name; the names beside it are
    expect(parts('are both nginx and php8.2-fpm running').map((p) => p.entities.unit)).toEqual(['nginx.service', 'php8.2-fpm.service']);
  });

  it('a clock time, a number or a date is never a unit', () => {
    for (const g of ['errors from 10pm to midnight yesterday', 'did anything restart at 3am', 'journal from 2024-05-01 10:00 to 2024-05-01 12:00', 'show me the log of two boots ago', 'why were there 3 errors at 12:00']) {
      expect(unitIn(g, ctx.topics), g).toBeNull();
    }
  });

  it('the first folder of a path is never a unit', () => {
    expect(parts('print the last lines of examples/data/syslog.txt')[0]!.entities).toMatchObject({ unit: null, path: 'examples/data/syslog.txt' });
  });

  it("a name the owner types outside a quotation keeps the owner's spelling", () => {
    expect(unitIn('docker says "Cannot connect to the Docker daemon"', ctx.topics)).toBe('docker.service');
    expect(unitIn('getting "Failed to start nginx.service" after boot, why', ctx.topics)).toBe('nginx.service');
  });

  it("journalctl's and systemctl's own words name the unit", () => {
    expect(unitIn('journalctl -u mosquitto --since today', ctx.topics)).toBe('mosquitto.service');
    expect(unitIn('svc status nginx', ctx.topics)).toBe('nginx.service');
    expect(unitIn('show the lines ssh logged since boot', ctx.topics)).toBe('ssh.service');
  });
});

describe('windows with both ends', () => {
  it('from 9 to 11 yesterday is a start and an end', () => {
    expect(window('show the logs from 9 to 11 yesterday')).toMatchObject({ since: '2026-03-03 09:00', until: '2026-03-03 11:00', boot: null });
  });

  it("two clock times with no day are today's, or yesterday's when the first has not come yet", () => {
    expect(window('errors between 14:00 and 15:30')).toMatchObject({ since: '14:00', until: '15:30' });
    expect(window('errors between 14:00 and 15:30', new Date(2026, 2, 4, 8, 0))).toMatchObject({ since: '2026-03-03 14:00', until: '2026-03-03 15:30' });
    expect(window('nginx logs between 2pm and 4pm')).toMatchObject({ since: '14:00', until: '16:00' });
    expect(window('errors from 10pm to midnight yesterday')).toMatchObject({ since: '2026-03-03 22:00', until: 'today' });
    expect(window('critical stuff from this morning till noon')).toMatchObject({ since: '06:00', until: '12:00' });
  });

  it('a day, or a part of one, is a start and an end', () => {
    expect(window('anything weird yesterday evening')).toMatchObject({ since: '2026-03-03 18:00', until: 'today', label: 'yesterday evening' });
    expect(window('what happened on monday')).toMatchObject({ since: '2026-03-02', until: '2026-03-03' });
    expect(window('log from last saturday')).toMatchObject({ since: '2026-02-28', until: '2026-03-01' });
    expect(window('what failed on 2024-06-01')).toMatchObject({ since: '2024-06-01', until: '2024-06-02' });
    // an open window stays open
    expect(window('errors since 2024-06-01')).toMatchObject({ since: '2024-06-01' });
    expect(window('errors since 2024-06-01')!.until).toBeUndefined();
  });

  it('a relative range is read earlier end first', () => {
    expect(window('warnings from 2 hours ago until 30 minutes ago')).toMatchObject({ since: '2 hours ago', until: '30 min ago' });
    expect(window('what happened between 3 and 5 days ago')).toMatchObject({ since: '5 days ago', until: '3 days ago' });
  });

  it('a moment is the half hour either side of it', () => {
    expect(window('what happened at 10:30')).toMatchObject({ since: '10:00', until: '11:00' });
    expect(window('did anything restart at 3am')).toMatchObject({ since: '02:30', until: '03:30' });
  });

  it('a count of things is not a time: "reduce the archive to 4 files" names no window', () => {
    expect(window('reduce the archive to 4 files')).toBeNull();
    expect(window('which filesystem is over 90% full')).toBeNull();
  });
});

describe('boots by offset', () => {
  it('the boot before this one is boot -1', () => {
    for (const g of ['errors from the boot before this one', 'what went wrong during the previous boot', 'what happened in the prior boot', 'why did the pi crash before the last reboot', 'journalctl -p err -b -1']) {
      expect(bootIn(g)?.boot ?? window(g)?.boot, g).toBe(-1);
    }
  });

  it('N boots ago is boot -N, and this boot is 0', () => {
    expect(window('show me the log of two boots ago')!.boot).toBe(-2);
    expect(window('journal for boot -3')!.boot).toBe(-3);
    expect(window('--boot=-4')!.boot).toBe(-4);
    expect(window('any errors this boot')!.boot).toBe(0);
    expect(window('errors since boot')!.boot).toBe(0);
  });
});

describe('parts', () => {
  it('a question word and its object that ask more of the same question stay in its part', () => {
    expect(parts('the disk is full, which filesystem is it?')).toHaveLength(1);
    expect(parts("my disk is full, what's using it?")).toHaveLength(1);
    expect(parts('a service failed at boot, which one?')).toHaveLength(1);
    // a question about something else is a part of its own
    expect(parts('is nginx running and how many errors did it log today').map((p) => p.text)).toEqual(['is nginx running', 'how many errors did it log today']);
  });

  it('a quotation never splits a goal, and a verb inside it never asks for a change', () => {
    expect(parts('dmesg says "Under-voltage detected!", what does that mean')).toHaveLength(1);
    // the colon inside the quotation opens no list; the question after it asks of the same message
    expect(parts('the log says "Out of memory: Killed process 812 (python3)", when did that happen').map((p) => p.text)).toEqual(['the log says "Out of memory: Killed process 812 (python3)", when did that happen']);
    expect(actionIn('"install htop" is what the guide says, is apt up to date', ctx.lexicon)).toBeNull();
    expect(actionIn('apt says "E: Unable to locate package htop"', ctx.lexicon)).toBeNull();
  });

  it('a count to keep is never a part of its own', () => {
    const [p, ...rest] = parts('wipe the old logs in examples/archive, leaving 2');
    expect(rest).toHaveLength(0);
    expect(p!.entities.keep).toBe(2);
    expect(p!.action).toMatchObject({ act: 'delete', head: ['archiv'] });
  });
});

describe('requests to change something', () => {
  it('the object of a request names the place it lies in', () => {
    expect(actionIn('get rid of all but the 3 newest files in the log archive', ctx.lexicon)).toMatchObject({ act: 'delete', head: ['archiv'] });
    expect(actionIn('how do i free up space on my iphone', ctx.lexicon)!.head).toContain('iphon');
  });

  it("an object that points elsewhere takes the part's other noun, and the verb may lead a later clause", () => {
    const [p] = parts('only keep the latest 7 archived logs, throw away the rest');
    expect(p!.action).toMatchObject({ act: 'delete', verb: 'throw away', head: ['log'] });
    expect(p!.entities.keep).toBe(7);
  });

  it('a count to keep is read however it is put: "so only 6 remain", "hang on to the five most recent"', () => {
    expect(parts('remove older archived logs so only 6 remain')[0]!.entities.keep).toBe(6);
    expect(parts('purge examples/archive but hang on to the five most recent')[0]!.entities.keep).toBe(5);
    expect(parts('purge examples/archive but hang on to the five most recent')[0]!.action!.head).toEqual(['archiv']);
  });

  it('a change of permissions, a move or a copy is a request, even when it names a path', () => {
    for (const g of ['chmod 644 /etc/hosts', 'chown pi:pi /srv/share', 'move /home/pi/backup.tar.gz to /mnt/usb', 'copy /etc/nginx/nginx.conf to my home folder', 'truncate /var/log/daemon.log', 'mask bluetooth.service']) {
      expect(parts(g)[0]!.action, g).not.toBeNull();
    }
  });
});

describe('what a part asks of the facts', () => {
  it('which, how many, is X among, list and show are selections, each with its noun', () => {
    expect(askIn('which services have failed')).toEqual({ kind: 'list', noun: 'unit' });
    expect(askIn('how many updates are pending')).toEqual({ kind: 'count', noun: 'package' });
    expect(askIn('list the network interfaces')).toEqual({ kind: 'list', noun: 'interface' });
    expect(askIn('is python3 in the process list')).toMatchObject({ kind: 'member', name: 'python3', noun: 'process' });
    expect(askIn('is wlan0 one of the interfaces')).toMatchObject({ kind: 'member', name: 'wlan0', noun: 'interface' });
    expect(askIn('tail /var/log/auth.log')).toEqual({ kind: 'show', noun: 'line' });
    expect(askIn('show me the error lines in /var/log/syslog')).toEqual({ kind: 'show', noun: 'line' });
    expect(askIn('why did home-assistant stop')).toEqual({ kind: 'why' });
    expect(askIn('is nginx running')).toEqual({ kind: 'state' });
    expect(askIn('is my disk in good shape')).toEqual({ kind: 'state' });
  });

  it("a membership's name is not the part's unit: the part is about the list", () => {
    const [p] = parts('is bluetooth.service among the failed units');
    expect(p!.entities.unit).toBeNull();
    expect(p!.ask).toEqual({ kind: 'member', name: 'bluetooth.service', noun: 'unit' });
    expect(p!.subject).toBe('failed units');
  });
});

describe('what a part is about', () => {
  it('the subject is the thing asked about, not a word beside it', () => {
    expect(parts("what's the load capacity of my shelf")[0]!.focus!.unknown).toContain('capacity');
    expect(parts('what temperature should my fridge be at')[0]!.focus).toMatchObject({ text: 'fridge', unknown: ['fridge'] });
    expect(parts('how hot is it outside')[0]!.focus!.unknown).toEqual(['outside']);
    expect(parts('when is the next kernel release')[0]!.focus!.unknown.length).toBeGreaterThan(0);
  });

  it('a question about the world in general is marked so; a message this machine gave is not', () => {
    expect(parts('explain what swap memory is')[0]!.general).toBe('explain');
    expect(parts('how much memory does a pi 5 come with')[0]!.general).not.toBeNull();
    expect(parts("what's a good ssd to buy for a pi")[0]!.general).not.toBeNull();
    expect(parts('dmesg says "Under-voltage detected!", what does that mean')[0]!.general).toBeNull();
    expect(parts('is the pi hot')[0]!.general).toBeNull();
  });

  it('an abbreviation is read as the one word it stands for, never a short word that could be many', () => {
    expect(read('swp?', ctx.lexicon, ctx.vocab).groups).toEqual(['memory']);
    expect(read('pkgs to upgrade?', ctx.lexicon, ctx.vocab).groups).toContain('update');
    expect(read('svc status', ctx.lexicon, ctx.vocab).groups).toContain('service');
    expect(read('is my nas mounted', ctx.lexicon, ctx.vocab).unknown).toContain('nas');
  });

  it('a threshold filters what is asked for; it is not a topic', () => {
    const [p] = parts('which filesystem is over 90% full');
    expect(p!.focus?.unknown ?? []).toEqual([]);
    expect(p!.subjectReading.groups).toContain('disk');
  });
});

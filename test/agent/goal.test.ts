// Goal understanding (design §12): a goal is read once — spelling, the owner's words through the
// lexicon, its parts, their entities and any request to act — against the shipped tools, playbooks
// and lexicon, exactly as the planner reads it.
import { describe, expect, it } from 'vitest';
import {
  actionIn, correct, editDistance, keepIn, read, understand, unitIn, windowIn, LexiconError, parseLexicon,
} from '../../src/agent/goal/index.js';
import { shippedGoalContext as context } from '../helpers/goal.js';

const ctx = context();
const groups = (text: string) => read(text, ctx.lexicon, ctx.vocab).groups;

describe('spelling', () => {
  it('a misspelt word is read as the tool word it is nearest to', () => {
    expect(correct('memroy', ctx.vocab, ctx.lexicon)).toBe('memory');
    expect(correct('dsik', ctx.vocab, ctx.lexicon)).toBe('disk');
    expect(correct('temprature', ctx.vocab, ctx.lexicon)).toBe('temperature');
    expect(correct('wirless', ctx.vocab, ctx.lexicon)).toBe('wireless');
    expect(correct('slooow', ctx.vocab, ctx.lexicon)).toBe('slow');
    expect(read('hows the disk spce', ctx.lexicon, ctx.vocab).fixes).toEqual([{ from: 'spce', to: 'space' }]);
  });

  it('a changed letter in a short word is another word, not a typo, and neither is an unknown long word', () => {
    for (const w of ['past', 'half', 'wise', 'snap', 'printer', 'bitcoin']) expect(correct(w, ctx.vocab, ctx.lexicon)).toBe(w);
  });

  it('a word typed in capitals is a name, never corrected', () => {
    expect(read('whats the SMART health', ctx.lexicon, ctx.vocab).fixes).toEqual([]);
  });

  it('edit distance counts a swap of two neighbours as one edit', () => {
    expect(editDistance('dsik', 'disk')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('abcdef', 'uvwxyz', 2)).toBe(3);
  });
});

describe('the lexicon', () => {
  it("the owner's words mean what the tools are about", () => {
    expect(groups('why is the pi so laggy')).toContain('slow');
    expect(groups('how much ram is free')).toContain('memory');
    expect(groups('am I out of storage')).toContain('disk');
    expect(groups('is mosquitto still alive')).toContain('running');
    expect(groups('systemctl says degraded')).toContain('failed');
    expect(groups('check temps')).toContain('temperature');
    expect(groups('is wlan0 up')).toContain('network');
  });

  it('a phrase is matched whole and before its words ("up to date" is about updates, "logged in" is not about logs)', () => {
    expect(groups('is the system up to date')).toEqual(['update']);
    expect(groups('who is logged in')).toEqual(['login']);
  });

  it('a lexicon file a user adds is merged, and its words take effect', () => {
    const local = parseLexicon({ manifest: 'lexicon@1', groups: [['temperature', 'toasty']] }, 'manifests/lexicon/local.json');
    const mine = context({ 'local.json': local });
    expect(read('is it toasty in there', mine.lexicon, mine.vocab).groups).toContain('temperature');
    expect(groups('is it toasty in there')).not.toContain('temperature');
  });

  it('a malformed lexicon is an error naming the file and the fix', () => {
    expect(() => parseLexicon({ manifest: 'lexicon@1', grups: [] }, 'manifests/lexicon/local.json')).toThrow(LexiconError);
    expect(() => parseLexicon({ manifest: 'lexicon@1', grups: [] }, 'manifests/lexicon/local.json')).toThrow(/local\.json.*remove the key/);
    expect(() => parseLexicon({ manifest: 'lexicon@1', groups: [['only-one']] }, 'x.json')).toThrow(/x\.json at groups\.0/);
  });

  it('stop words never swallow content words ("own", "up", "down" stay), and time words are not topics', () => {
    expect(read('who owns this file', ctx.lexicon, ctx.vocab).terms).toContain('own');
    expect(read('is the network down', ctx.lexicon, ctx.vocab).terms).toContain('down');
    expect(read('errors in the last 2 hours since yesterday', ctx.lexicon, ctx.vocab).terms).not.toEqual(expect.arrayContaining(['last']));
  });

  it('filler phrases carry no topic', () => {
    expect(read("what's going on", ctx.lexicon, ctx.vocab).terms).toEqual([]);
  });
});

describe('what a part asks about', () => {
  it('the thing a question is about is read, with words nothing here knows', () => {
    expect(understand('is my nas mounted over nfs healthy', ctx).parts[0]!.focus).toMatchObject({ unknown: ['nas'] });
    expect(understand("what's the wifi password", ctx).parts[0]!.focus).toMatchObject({ text: 'wifi password', unknown: ['password'] });
    expect(understand("is my pi's cpu hot", ctx).parts[0]!.focus).toMatchObject({ text: 'cpu hot', unknown: [] });
  });

  it('a size question names what it measures: "how much space do the journal logs take up" is the size of the logs', () => {
    expect(understand('how much space do the journal logs take up', ctx).parts[0]!.focus).toMatchObject({ text: 'journal logs', attribute: 'size' });
    expect(understand('how big is the apt cache', ctx).parts[0]!.focus).toMatchObject({ text: 'apt cache', attribute: 'size' });
    expect(understand('how fast is my internet', ctx).parts[0]!.focus).toMatchObject({ text: 'internet', attribute: 'fast' });
  });

  it('a comparative or superlative of a known word is known ("which partition is the fullest")', () => {
    expect(understand('which partition is the fullest', ctx).parts[0]!.reading.unknown).toEqual([]);
    expect(understand('which wifi networks are nearby', ctx).parts[0]!.focus).toMatchObject({ text: 'wifi networks nearby', unknown: ['nearby'] });
  });

  it('a question about nothing but the machine asks after its health', () => {
    for (const g of ["how's my raspberry pi doing", 'how is the box?']) expect(understand(g, ctx).parts[0]!.reading.groups, g).toEqual(['health']);
    expect(understand('reboot the pi', ctx).parts[0]!.reading.groups).not.toContain('health');
  });
});

describe('parts', () => {
  const texts = (goal: string) => understand(goal, ctx).parts.map((p) => p.text);

  it('a goal with two questions is two parts', () => {
    expect(texts('Why is the disk full and is the CPU hot?')).toEqual(['Why is the disk full', 'is the CPU hot']);
    expect(texts('check the wifi. also are there updates?')).toEqual(['check the wifi', 'are there updates']);
    expect(texts('whats my ip? any failed services?')).toEqual(['whats my ip', 'any failed services']);
  });

  it('a list after a colon is one part per item, and its title is not a part', () => {
    expect(texts('rundown of the box pls: disk, ram, temp, and any failed services')).toEqual(['disk', 'ram', 'temp', 'any failed services']);
  });

  it('"or" between two questions makes two parts: "is the SD card full or is it the ram"', () => {
    expect(understand('is the SD card full or is it the ram', ctx).parts.map((p) => p.text)).toEqual(['is the SD card full', 'is it the ram']);
    expect(understand('is the disk full or not', ctx).parts).toHaveLength(1);
  });

  it('a fragment that asks nothing of its own stays with its question', () => {
    expect(texts('the box is crawling, whats going on')).toEqual(['the box is crawling, whats going on']);
    expect(texts('prune the log archive, keep the 5 newest')).toHaveLength(1);
    expect(texts('zigbee2mqtt keeps restarting, why')).toHaveLength(1);
  });

  it('a path or a file name never splits a goal', () => {
    expect(texts('is examples/data/tone.wav mono or stereo')).toHaveLength(1);
  });

  it('a bare name beside a part that names a unit is a unit too: "check nginx and mosquitto", "… and what about postgresql"', () => {
    expect(understand('check nginx and mosquitto', ctx).parts.map((p) => p.entities.unit)).toEqual(['nginx.service', 'mosquitto.service']);
    expect(understand('is nginx running and what about postgresql', ctx).parts.map((p) => p.entities.unit)).toEqual(['nginx.service', 'postgresql.service']);
    expect(understand('is nginx running and what about the disk', ctx).parts[1]!.entities.unit).toBeNull();
    expect(understand('can you check if the mariadb service is up', ctx).parts[0]!.entities.unit).toBe('mariadb.service');
  });

  it('a part that points back with a pronoun takes the unit named before it', () => {
    const u = understand('is mosquitto running and what did it log in the last hour', ctx);
    expect(u.parts.map((p) => p.entities.unit)).toEqual(['mosquitto.service', 'mosquitto.service']);
    expect(u.parts[1]!.entities.window?.since).toBe('1 hour ago');
    expect(u.parts[0]!.entities.window).toBeNull();
  });
});

describe('entities', () => {
  it('unit names keep their case, and pronouns and common words are never units', () => {
    expect(unitIn('did pihole-FTL crash again', ctx.topics)).toBe('pihole-FTL.service');
    expect(unitIn('is NetworkManager running', ctx.topics)).toBe('NetworkManager.service');
    expect(unitIn('can you restart mosquitto for me', ctx.topics)).toBe('mosquitto.service');
    expect(unitIn('is my plex server alive', ctx.topics)).toBe('plex.service');
    expect(unitIn('show the mosquitto logs from the past 3 days', ctx.topics)).toBe('mosquitto.service');
    for (const g of ['which units are failed', 'list failed units', 'is the network down', 'is it running', 'is wlan0 up', 'general status report', 'is the system up to date']) {
      expect(unitIn(g, ctx.topics), g).toBeNull();
    }
  });

  it('time windows are read into the journal form, each with the window in words', () => {
    expect(windowIn('errors in the past half hour?')).toEqual({ since: '30 min ago', boot: null, label: 'the last 30 minutes' });
    expect(windowIn('what went wrong last night')).toMatchObject({ since: 'yesterday', label: 'since yesterday' });
    expect(windowIn('what happened since the reboot')).toEqual({ since: null, boot: 0, label: 'since the last boot' });
    expect(windowIn('anything weird this morning')).toMatchObject({ since: 'today' });
    expect(windowIn('logs from the last 15 minutes')).toMatchObject({ since: '15 min ago' });
    expect(windowIn('what did nginx log in the last hour')).toMatchObject({ since: '1 hour ago', label: 'the last hour' });
    expect(windowIn('mosquitto logs from the past 3 days')).toMatchObject({ since: '3 days ago' });
    expect(windowIn('is the disk full')).toBeNull();
  });

  it('a count to keep is read when it is put as what is left ("down to 5 files", "only the 2 newest")', () => {
    expect(keepIn('could you prune the log archive down to 5 files')).toBe(5);
    expect(keepIn('prune the archive, only the 2 newest')).toBe(2);
    expect(keepIn('trim it to just 4 archives')).toBe(4);
  });

  it('a count to keep is read however it is put', () => {
    expect(keepIn('prune the log archive, keep the 5 newest')).toBe(5);
    expect(keepIn('clean up the archive but leave the 2 most recent')).toBe(2);
    expect(keepIn('trim the log archive to the latest three files')).toBe(3);
    expect(keepIn('clear out the archive except for the newest one')).toBe(1);
    expect(keepIn('prune /srv/logs/archive keeping 4')).toBe(4);
    expect(keepIn('how many files are in the archive')).toBeNull();
  });

  it('a unit is read where the log lines it wrote are asked for: "errors from cron", "what did systemd-journald print"', () => {
    expect(unitIn('errors from cron this morning')).toBe('cron.service');
    expect(unitIn('what warnings did systemd-journald print today')).toBe('systemd-journald.service');
    for (const g of ['errors from yesterday', 'errors from the last hour']) expect(unitIn(g), g).toBeNull();
  });

  it('a word after a verb inside a question is not a unit, and an adverb never is', () => {
    expect(unitIn('was there an out of memory kill recently')).toBeNull();
    expect(unitIn('did anything get killed recently')).toBeNull();
    expect(unitIn('please kill mosquitto')).toBe('mosquitto.service');
    expect(unitIn('can you restart Zigbee2MQTT')).toBe('Zigbee2MQTT.service');
  });

  it('a misspelt topic word is not a unit: "netwrok down?"', () => {
    expect(understand('netwrok down?', ctx).parts[0]!.entities.unit).toBeNull();
    expect(understand('is grafana-server down?', ctx).parts[0]!.entities.unit).toBe('grafana-server.service');
  });

  it('a file name without a folder is the path; a unit, a host name or a version is not', () => {
    expect(understand('what resolution is photo.jpg', ctx).parts[0]!.entities.path).toBe('photo.jpg');
    expect(understand('is clip.wav stereo?', ctx).parts[0]!.entities.path).toBe('clip.wav');
    for (const g of ['is cron.service running', 'can the pi reach example.com', 'is python 3.11 installed']) {
      expect(understand(g, ctx).parts[0]!.entities.path, g).toBeNull();
    }
  });

  it('a path is read whole, and two topic words with a slash are not a path', () => {
    const u = understand('how big is examples/data/sample.png, and disk/ram?', ctx);
    expect(u.parts[0]!.entities.path).toBe('examples/data/sample.png');
    expect(u.parts[1]?.entities.path ?? null).toBeNull();
  });
});

describe('requests to act', () => {
  it('a request to act is recognised only when its verb leads the part', () => {
    expect(actionIn('can you restart mosquitto for me', ctx.lexicon)).toMatchObject({ act: 'restart', verb: 'restart', object: 'mosquitto' });
    expect(actionIn('pls update all my packages', ctx.lexicon)).toMatchObject({ act: 'install', object: 'all your packages' });
    expect(actionIn('why did nginx restart', ctx.lexicon)).toBeNull();
    expect(actionIn('zigbee2mqtt keeps restarting', ctx.lexicon)).toBeNull();
    expect(actionIn('are there updates', ctx.lexicon)).toBeNull();
  });

  it('a lone word asks for a change only in the form the lexicon lists: "updates?" is a question, "sudo apt upgrade" a request', () => {
    expect(actionIn('updates?', ctx.lexicon)).toBeNull();
    expect(actionIn('restarts', ctx.lexicon)).toBeNull();
    expect(actionIn('sudo apt upgrade everything', ctx.lexicon)).toMatchObject({ act: 'install' });
    expect(understand('check temps, then tell me if wifi is connected, also updates?', ctx).parts.map((p) => p.action)).toEqual([null, null, null]);
  });

  it('a misspelt verb that leads the part is still a request: "restrat nginx"', () => {
    expect(understand('restrat nginx', ctx).parts[0]!.action).toMatchObject({ act: 'restart', verb: 'restart', object: 'nginx' });
    expect(understand('pls restrat mosquitto', ctx).parts[0]!.action).toMatchObject({ act: 'restart', object: 'mosquitto' });
    expect(understand('is restic running', ctx).parts[0]!.action).toBeNull();
  });

  it('the object of "everything in the archive" is the archive, and "get rid of" asks to delete', () => {
    expect(actionIn('delete everything in the archive except the newest 2', ctx.lexicon)).toMatchObject({ act: 'delete', head: ['archiv'] });
    expect(actionIn('get rid of old archived logs but keep 3', ctx.lexicon)).toMatchObject({ act: 'delete', head: ['log'] });
    expect(unitIn('get rid of old archived logs but keep 3')).toBeNull();
  });

  it('a separable verb is a request too: "turn the fan on", "switch the wifi off"', () => {
    expect(actionIn('turn the fan on', ctx.lexicon)).toMatchObject({ act: 'start', verb: 'turn on', object: 'the fan', head: ['fan'] });
    expect(actionIn('switch the wifi off please', ctx.lexicon)).toMatchObject({ act: 'stop', verb: 'switch off', head: ['wifi'] });
    expect(actionIn('is the fan on', ctx.lexicon)).toBeNull();
  });

  it('the object of a request is its head word and the place it lies in, or the name at the end of a path', () => {
    expect(actionIn('vacuum the journal down to 100M', ctx.lexicon)!.head).toEqual(['journal']);
    expect(actionIn('clean up the old rotated logs in the archive but leave 2', ctx.lexicon)).toMatchObject({ act: 'delete', verb: 'clean up', head: ['log', 'archiv'] });
    expect(actionIn('prune /srv/logs/archive keeping 4', ctx.lexicon)!.head).toEqual(['archiv']);
    expect(actionIn('delete /tmp/cache.db', ctx.lexicon)!.head).toEqual(['cach', 'db']);
  });
});

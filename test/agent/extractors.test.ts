// The named extractors fill playbook slots from the operator's goal by rule: each returns the
// form the shipped tools accept, or null when the goal does not name one — never a guess.
import { describe, expect, it } from 'vitest';
import { extract } from '../../src/agent/extractors.js';

describe('unit', () => {
  it('reads a unit written out, or named as a service or daemon', () => {
    expect(extract('unit', 'is mnt-data.mount mounted?')).toBe('mnt-data.mount');
    expect(extract('unit', 'why did cron.service stop')).toBe('cron.service');
    expect(extract('unit', 'restart the nginx service')).toBe('nginx.service');
    expect(extract('unit', 'has the mosquitto daemon been restarting')).toBe('mosquitto.service');
  });

  it('reads a service named by its state or status', () => {
    expect(extract('unit', 'Is nginx running?')).toBe('nginx.service');
    expect(extract('unit', 'Why does mosquitto keep crashing?')).toBe('mosquitto.service');
    expect(extract('unit', 'apache2 keeps crashing every few minutes')).toBe('apache2.service');
    expect(extract('unit', 'redis won\'t start')).toBe('redis.service');
    expect(extract('unit', 'Why did NGINX fail to start?')).toBe('nginx.service');
    expect(extract('unit', 'has home-assistant been restarted today?')).toBe('home-assistant.service');
    expect(extract('unit', 'check the status of docker')).toBe('docker.service');
    expect(extract('unit', 'sshd status please')).toBe('sshd.service');
  });

  it('the machine, its parts, pronouns and the words for services in general are never a unit', () => {
    for (const g of ['is the pi running hot?', 'Is it running?', 'why is everything running so slow', 'the fan is not working',
      'Which services failed to start after the reboot?', 'what keeps crashing?', 'system status', 'the wifi keeps dropping',
      'my disk keeps failing', 'Why is the disk full?', 'is the network down', 'what is running on this box']) {
      expect(extract('unit', g), g).toBeNull();
    }
  });

  it('skips a non-unit to find the unit named later in the goal', () => {
    expect(extract('unit', 'the pi keeps restarting, is nginx running?')).toBe('nginx.service');
  });
});

describe('path', () => {
  it('takes the first absolute path, trailing punctuation and slash dropped', () => {
    expect(extract('path', 'Who owns /etc/hostname?')).toBe('/etc/hostname');
    expect(extract('path', 'how big is "/var/log/syslog", and why')).toBe('/var/log/syslog');
    expect(extract('path', 'what is in /srv/data/')).toBe('/srv/data');
    expect(extract('path', 'who owns this file?')).toBeNull();
  });
});

describe('since', () => {
  it('turns spans and days into the journalctl forms the journal tool accepts', () => {
    expect(extract('since', 'errors in the last 2 hours')).toBe('2 hours ago');
    expect(extract('since', 'what happened in the past 30 minutes')).toBe('30 min ago');
    expect(extract('since', 'in the last hour')).toBe('1 hours ago');
    expect(extract('since', 'over the last three days')).toBe('3 days ago');
    expect(extract('since', 'logs since yesterday')).toBe('yesterday');
    expect(extract('since', 'any errors today?')).toBe('today');
    expect(extract('since', 'since the last boot')).toBeNull();
    expect(extract('since', 'why is the disk full')).toBeNull();
  });
});

describe('priority and sort', () => {
  it('names a journal priority only when the goal speaks of one', () => {
    expect(extract('priority', 'any errors?')).toBe('err');
    expect(extract('priority', 'which units failed')).toBe('err');
    expect(extract('priority', 'warnings from the kernel')).toBe('warning');
    expect(extract('priority', 'a kernel panic last night')).toBe('crit');
    expect(extract('priority', 'what happened since boot')).toBeNull();
  });

  it('sorts processes by memory when the goal speaks of memory, by CPU when of load', () => {
    expect(extract('sort', 'what is eating all the RAM')).toBe('mem');
    expect(extract('sort', 'the OOM killer fired')).toBe('mem');
    expect(extract('sort', 'what is hogging the CPU')).toBe('cpu');
    expect(extract('sort', 'is the pi overheating')).toBeNull();
  });
});

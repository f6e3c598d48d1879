/**
 * Issue 3 item 3: "bad input never stops the daemon and is never silently
 * dropped" — here, the verdict half: every kind of bad inbox entry gets a
 * reject verdict that says what is wrong and how to fix it.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inspectEntry, isIgnoredName, nameProblem } from '../../src/daemon/inspect.js';
import { goodJob, tempRoot } from './helpers.js';

const inboxOf = (root: string): string => join(root, 'sessions', 'inbox');

describe('inspectEntry', () => {
  it('a valid job file is a job, and a session-id name is kept as the id', async () => {
    const inbox = inboxOf(tempRoot());
    writeFileSync(join(inbox, '20261129-113512-3fa9c01b2d4e.json'), JSON.stringify(goodJob()));
    writeFileSync(join(inbox, 'disk.json'), JSON.stringify(goodJob('batch')));
    const a = await inspectEntry(inbox, '20261129-113512-3fa9c01b2d4e.json');
    const b = await inspectEntry(inbox, 'disk.json');
    expect(a.kind === 'job' && a.idFromName).toBe('20261129-113512-3fa9c01b2d4e');
    expect(b.kind === 'job' && b.idFromName).toBeNull();
    expect(b.kind === 'job' && b.job.budget_class).toBe('batch');
  });

  it('unparseable JSON is rejected with the parser message and a fix', async () => {
    const inbox = inboxOf(tempRoot());
    writeFileSync(join(inbox, 'broken.json'), '{"job": "job@1", ');
    const v = await inspectEntry(inbox, 'broken.json');
    expect(v.kind).toBe('reject');
    if (v.kind === 'reject') {
      expect(v.problem).toMatch(/not valid JSON/);
      expect(v.fix.length).toBeGreaterThan(10);
    }
  });

  it('a JSON value that is not a job is rejected naming the job shape', async () => {
    const inbox = inboxOf(tempRoot());
    writeFileSync(join(inbox, 'array.json'), '[1, 2, 3]');
    const v = await inspectEntry(inbox, 'array.json');
    expect(v.kind === 'reject' && v.problem).toMatch(/not a valid job@1/);
    expect(v.kind === 'reject' && v.fix).toMatch(/"job":"job@1"/);
  });

  it('an unknown field is rejected by name, not ignored', async () => {
    const inbox = inboxOf(tempRoot());
    writeFileSync(join(inbox, 'typo.json'), JSON.stringify({ ...goodJob(), budget_clas: 'batch' }));
    const v = await inspectEntry(inbox, 'typo.json');
    expect(v.kind === 'reject' && v.problem).toMatch(/unknown field\(s\) "budget_clas"/);
  });

  it('a file over the size limit is rejected without being parsed', async () => {
    const inbox = inboxOf(tempRoot());
    writeFileSync(join(inbox, 'big.json'), JSON.stringify({ ...goodJob(), label: 'x'.repeat(2000) }));
    const v = await inspectEntry(inbox, 'big.json', 1024);
    expect(v.kind === 'reject' && v.problem).toMatch(/over the 1024-byte limit/);
  });

  it('a symlink is rejected and its target is never read', async () => {
    const root = tempRoot();
    const inbox = inboxOf(root);
    const secret = join(root, 'secret.json');
    writeFileSync(secret, JSON.stringify(goodJob()));
    symlinkSync(secret, join(inbox, 'link.json'));
    const v = await inspectEntry(inbox, 'link.json');
    expect(v.kind === 'reject' && v.problem).toMatch(/symbolic link/);
    expect(readFileSync(secret, 'utf8')).toContain('job@1');
  });

  it('a directory or a FIFO in the inbox is rejected, not waited on', async () => {
    const inbox = inboxOf(tempRoot());
    mkdirSync(join(inbox, 'dir.json'));
    execFileSync('mkfifo', [join(inbox, 'pipe.json')]);
    const v = await inspectEntry(inbox, 'dir.json');
    const w = await inspectEntry(inbox, 'pipe.json');
    expect(v.kind === 'reject' && v.problem).toMatch(/not a regular file/);
    expect(w.kind === 'reject' && w.problem).toMatch(/not a regular file/);
  });

  it('an entry that vanished before the look is "gone", not an error', async () => {
    const inbox = inboxOf(tempRoot());
    expect((await inspectEntry(inbox, 'nothing.json')).kind).toBe('gone');
  });
});

describe('names', () => {
  it('path tricks and control characters are refused; plain names pass', () => {
    expect(nameProblem('disk-check_2.json')).toBeNull();
    expect(nameProblem('a..b.json')?.problem).toMatch(/path trick/);
    expect(nameProblem('a\\b.json')?.problem).toMatch(/path trick/);
    expect(nameProblem('-rf.json')?.problem).toMatch(/path trick/);
    expect(nameProblem('bell\u0007.json')?.problem).toMatch(/control characters/);
    expect(nameProblem('new\nline.json')?.problem).toMatch(/control characters/);
    expect(nameProblem('job.txt')?.problem).toMatch(/does not end in \.json/);
    expect(nameProblem('caf\u00e9.json')?.problem).toMatch(/outside \[A-Za-z0-9._-\]/);
  });

  it('dot-files and *.tmp are the writers\' temp names and are never looked at', () => {
    expect(isIgnoredName('.job.json.tmp')).toBe(true);
    expect(isIgnoredName('.hidden.json')).toBe(true);
    expect(isIgnoredName('upload.tmp')).toBe(true);
    expect(isIgnoredName('job.json')).toBe(false);
  });
});

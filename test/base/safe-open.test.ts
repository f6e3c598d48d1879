// The one safe read of a planted file (issue 20, design §13): real files, a real FIFO, socket,
// device and hard link, and files written by a real second user (uid 65534 through setpriv).
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, linkSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkFolder, listFolder, parseJsonQuiet, plantedFolder, readPlanted, readPlantedText, rootRules, UnsafeFileError } from '../../src/base/safe-open.js';

const NOBODY = 65534;
const isRoot = process.geteuid?.() === 0;
const hasSetpriv = spawnSync('setpriv', ['--version']).status === 0;

let base: string;
let root: string;
let server: Server | null = null;

function refusal(fn: () => unknown): UnsafeFileError {
  try {
    fn();
  } catch (err) {
    if (err instanceof UnsafeFileError) return err;
    throw err;
  }
  throw new Error('expected an UnsafeFileError, got none');
}

const CAP = { maxBytes: 4096, what: 'decision file' };

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'safe-open-'));
  root = join(base, 'root');
  mkdirSync(join(root, 'sessions', 's1', 'approvals'), { recursive: true, mode: 0o700 });
  chmodSync(root, 0o700);
  writeFileSync(join(base, 'outside.json'), '{"decision":"granted","secret":"root:$y$j9T$hash"}\n', { mode: 0o600 });
});

afterAll(() => {
  server?.close();
  rmSync(base, { recursive: true, force: true });
});

describe('readPlanted', () => {
  it('reads a regular file the daemon\'s user wrote, with its owner', () => {
    writeFileSync(join(root, 'sessions', 's1', 'approvals', 'ok.json'), '{"a":1}', { mode: 0o600 });
    const f = readPlantedText(rootRules(root), join(root, 'sessions', 's1', 'approvals', 'ok.json'), CAP);
    expect(f?.text).toBe('{"a":1}');
    expect(f?.uid).toBe(process.geteuid?.());
  });

  it('a missing file, or a missing folder on the way, is null, not an error', () => {
    expect(readPlanted(rootRules(root), 'sessions/s1/approvals/none.json', CAP)).toBeNull();
    expect(readPlanted(rootRules(root), 'sessions/nope/approvals/none.json', CAP)).toBeNull();
  });

  it('a symlink as the file is refused, naming the file and never quoting the target', () => {
    const p = join(root, 'sessions', 's1', 'approvals', 'link.json');
    symlinkSync(join(base, 'outside.json'), p);
    const e = refusal(() => readPlanted(rootRules(root), p, CAP));
    expect(e.reason).toBe('symlink');
    expect(e.message).toContain(p);
    expect(e.message).not.toContain('secret');
    expect(e.message).not.toContain('root:$');
  });

  it('a symlinked folder on the way is refused: the approvals/ folder leading out of the session', () => {
    mkdirSync(join(base, 'elsewhere'), { mode: 0o700 });
    writeFileSync(join(base, 'elsewhere', 'x.json'), '{}', { mode: 0o600 });
    mkdirSync(join(root, 'sessions', 's2'), { mode: 0o700 });
    symlinkSync(join(base, 'elsewhere'), join(root, 'sessions', 's2', 'approvals'));
    const e = refusal(() => readPlanted(rootRules(root), 'sessions/s2/approvals/x.json', CAP));
    expect(e.reason).toBe('symlink');
    expect(e.file).toBe(join(root, 'sessions', 's2', 'approvals'));
  });

  it('a FIFO is refused at once instead of blocking the reader', () => {
    const p = join(root, 'sessions', 's1', 'approvals', 'fifo.json');
    execFileSync('mkfifo', [p]);
    const t0 = Date.now();
    const e = refusal(() => readPlanted(rootRules(root), p, CAP));
    expect(e.reason).toBe('not_regular');
    expect(e.message).toContain('FIFO');
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  it('a socket is refused', async () => {
    const p = join(root, 'sessions', 's1', 'approvals', 'sock.json');
    server = createServer();
    await new Promise<void>((res) => server!.listen(p, res));
    const e = refusal(() => readPlanted(rootRules(root), p, CAP));
    expect(e.reason).toBe('not_regular');
    expect(e.message).toContain('socket');
  });

  it.skipIf(!isRoot)('a device node is refused without being opened', () => {
    const p = join(root, 'sessions', 's1', 'approvals', 'dev.json');
    execFileSync('mknod', [p, 'c', '1', '3']); // /dev/null's numbers
    const e = refusal(() => readPlanted(rootRules(root), p, CAP));
    expect(e.reason).toBe('not_regular');
    expect(e.message).toContain('character device');
  });

  it('a hard link to a file elsewhere is refused (it shows another file\'s content under this name)', () => {
    const p = join(root, 'sessions', 's1', 'approvals', 'hard.json');
    linkSync(join(base, 'outside.json'), p);
    const e = refusal(() => readPlanted(rootRules(root), p, CAP));
    expect(e.reason).toBe('links');
    expect(e.message).not.toContain('secret');
  });

  it('a file over the cap is refused, naming the size and the cap', () => {
    const p = join(root, 'sessions', 's1', 'approvals', 'big.json');
    writeFileSync(p, 'x'.repeat(5000), { mode: 0o600 });
    const e = refusal(() => readPlanted(rootRules(root), p, CAP));
    expect(e.reason).toBe('size');
    expect(e.message).toMatch(/5000 bytes, over its cap of 4096/);
  });

  it('a world-writable (0666) file is refused under a 0700 root; a group-writable one is admitted only when the root is group-writable', () => {
    const p = join(root, 'sessions', 's1', 'approvals', 'loose.json');
    writeFileSync(p, '{}');
    chmodSync(p, 0o666);
    expect(refusal(() => readPlanted(rootRules(root), p, CAP)).reason).toBe('mode');
    chmodSync(p, 0o660);
    expect(refusal(() => readPlanted(rootRules(root), p, CAP)).reason).toBe('mode');
    chmodSync(root, 0o2770);
    try {
      expect(readPlanted(rootRules(root), p, CAP)?.bytes.toString()).toBe('{}');
      chmodSync(p, 0o666);
      expect(refusal(() => readPlanted(rootRules(root), p, CAP)).reason).toBe('mode');
    } finally {
      chmodSync(root, 0o700);
    }
  });

  it.skipIf(!isRoot || !hasSetpriv)('a file a real second user (uid 65534) wrote is refused, naming the uid; admitted once that user is in the root\'s group', () => {
    const drop = mkdtempSync(join(tmpdir(), 'safe-open-drop-'));
    chmodSync(drop, 0o1777);
    const made = join(drop, 'grant.json');
    execFileSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', 'sh', '-c', `umask 077; printf '{}' > ${made}`]);
    const p = join(root, 'sessions', 's1', 'approvals', 'mallory.json');
    renameSync(made, p); // same filesystem: the file keeps the owner that wrote it
    rmSync(drop, { recursive: true, force: true });
    const e = refusal(() => readPlanted(rootRules(root), p, CAP));
    expect(e.reason).toBe('owner');
    expect(e.owner).toBe(NOBODY);
    expect(e.message).toContain('uid 65534');
    // the root's group is nobody's primary group: that user is admitted
    chownSync(root, process.geteuid!(), NOBODY);
    try {
      expect(readPlanted(rootRules(root), p, CAP)?.uid).toBe(NOBODY);
    } finally {
      chownSync(root, process.geteuid!(), process.getegid!());
    }
  });

  it.skipIf(!isRoot)('a folder owned by another user on the way is refused', () => {
    mkdirSync(join(root, 'sessions', 's3', 'approvals'), { recursive: true, mode: 0o700 });
    writeFileSync(join(root, 'sessions', 's3', 'approvals', 'a.json'), '{}', { mode: 0o600 });
    chownSync(join(root, 'sessions', 's3', 'approvals'), NOBODY, NOBODY);
    const e = refusal(() => readPlanted(rootRules(root), 'sessions/s3/approvals/a.json', CAP));
    expect(e.reason).toBe('owner');
    expect(e.file).toBe(join(root, 'sessions', 's3', 'approvals'));
  });

  it('a path that leads out of the root is refused', () => {
    expect(refusal(() => readPlanted(rootRules(root), join(base, 'outside.json'), CAP)).reason).toBe('outside');
    expect(refusal(() => readPlanted(rootRules(root), '../outside.json', CAP)).reason).toBe('outside');
  });

  it('a file that is not UTF-8 is refused naming the byte offset, not the bytes', () => {
    const p = join(root, 'sessions', 's1', 'approvals', 'latin1.json');
    writeFileSync(p, Buffer.from([0x7b, 0x22, 0xe9, 0x22, 0x7d]), { mode: 0o600 });
    const e = refusal(() => readPlantedText(rootRules(root), p, CAP));
    expect(e.reason).toBe('encoding');
    expect(e.message).toContain('byte offset 2');
  });
});

describe('checkFolder and listFolder', () => {
  it('list a folder with lstat: a planted symlink is listed as a symlink, never followed', () => {
    mkdirSync(join(root, 'sessions', 'walk'), { mode: 0o700 });
    symlinkSync(join(base, 'elsewhere'), join(root, 'sessions', 'walk', 'planted'));
    mkdirSync(join(root, 'sessions', 'walk', 'real'), { mode: 0o700 });
    const entries = listFolder(rootRules(root), 'sessions/walk')!;
    expect(entries.map((e) => [e.name, e.stat.isSymbolicLink()])).toEqual([['planted', true], ['real', false]]);
    expect(refusal(() => listFolder(rootRules(root), 'sessions/walk/planted')).reason).toBe('symlink');
    expect(checkFolder(rootRules(root), 'sessions/walk/real')?.isDirectory()).toBe(true);
    expect(checkFolder(rootRules(root), 'sessions/walk/none')).toBeNull();
  });

  it.skipIf(!isRoot)('a folder on another device inside the root is refused (a mount is not the root\'s own)', (ctx) => {
    const mnt = join(root, 'sessions', 'mnt');
    mkdirSync(mnt, { mode: 0o700 });
    if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=0700', 'tmpfs', mnt]).status !== 0) {
      ctx.skip(); // no mount here (no CAP_SYS_ADMIN): the device check cannot be shown
      return;
    }
    try {
      expect(refusal(() => checkFolder(rootRules(root), mnt)).reason).toBe('device');
    } finally {
      spawnSync('umount', [mnt]);
    }
  });
});

describe('plantedFolder', () => {
  it('reads each file of a folder as readPlanted does, refusals included, and no path', () => {
    const dir = join(root, 'sessions', 'many');
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(join(dir, 'a.json'), '{"a":1}', { mode: 0o600 });
    writeFileSync(join(dir, 'big.json'), 'x'.repeat(5000), { mode: 0o600 });
    writeFileSync(join(dir, 'loose.json'), '{}', { mode: 0o600 });
    chmodSync(join(dir, 'loose.json'), 0o666);
    symlinkSync(join(base, 'outside.json'), join(dir, 'link.json'));
    writeFileSync(join(base, 'linked-in.json'), '{}', { mode: 0o600 });
    linkSync(join(base, 'linked-in.json'), join(dir, 'hard.json'));
    execFileSync('mkfifo', [join(dir, 'fifo.json')]);
    mkdirSync(join(dir, 'sub.json'), { mode: 0o700 });
    const outcome = (read: () => unknown): unknown => {
      try {
        const f = read() as { bytes: Buffer; uid: number; mode: number } | null;
        return f && { text: f.bytes.toString(), uid: f.uid, mode: f.mode };
      } catch (err) {
        return err instanceof UnsafeFileError ? { reason: err.reason, message: err.message } : { threw: String(err) };
      }
    };
    const folder = plantedFolder(rootRules(root), 'sessions/many')!;
    try {
      const names = ['a.json', 'big.json', 'loose.json', 'link.json', 'hard.json', 'fifo.json', 'sub.json', 'none.json'];
      const seen = names.map((n) => outcome(() => folder.read(n, CAP)));
      expect(seen).toEqual(names.map((n) => outcome(() => readPlanted(rootRules(root), join(dir, n), CAP))));
      expect(seen.map((o) => (o as { reason?: string } | null)?.reason ?? (o === null ? 'none' : 'read'))).toEqual(['read', 'size', 'mode', 'symlink', 'links', 'not_regular', 'not_regular', 'none']);
      expect(() => folder.read('../many/a.json', CAP)).toThrow(TypeError);
      expect(() => folder.read('..', CAP)).toThrow(TypeError);
    } finally {
      folder.close();
    }
    expect(plantedFolder(rootRules(root), 'sessions/nowhere')).toBeNull();
    expect(refusal(() => plantedFolder(rootRules(root), 'sessions/s2/approvals')).reason).toBe('symlink');
  });
});

describe('parseJsonQuiet', () => {
  it('names the line and column of a syntax error and quotes nothing', () => {
    const r = parseJsonQuiet('root:$y$j9T$secrethash:19000:0:99999:7:::\n');
    expect('problem' in r && r.problem).toMatch(/line 1, column 1/);
    expect(JSON.stringify(r)).not.toContain('secret');
    expect(parseJsonQuiet('{"a":\n 1,\n x}')).toEqual({ problem: 'it is not JSON: a key in quotes was expected (at line 3, column 2)' });
    expect(parseJsonQuiet('{"effect": "destructive",\n "effect": "read_only"}')).toEqual({ problem: 'key "effect" appears twice, at line 1 and again at line 2; JSON keeps only the last' });
    expect(parseJsonQuiet('{"a": [1]}')).toEqual({ value: { a: [1] } });
  });
});

/**
 * Issue 21 item 4: the prune job's answer was a log_summary@2 full of nulls,
 * the tool's "removed …" lines dropped. prune_result@1 keeps them: the real
 * prune_archive command (the shipped manifest's own sh -c script) runs on a
 * real folder, its report is parsed, and the answer names what went.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsePrune } from '../../providers/prune-result/index.js';
import { renderAnswer } from '../../providers/answer/index.js';
import { REPO } from '../helpers/root.js';
import { tempDir } from '../helpers/temp.js';

/** Run the shipped prune_archive command on `dir`, keeping `keep`. */
function prune(dir: string, keep: number): string {
  const tool = JSON.parse(readFileSync(join(REPO, 'manifests/tools/prune_archive.json'), 'utf8')) as { command: string[] };
  const argv = tool.command.map((a) => (a === '{dir}' ? dir : a === '{keep}' ? String(keep) : a));
  const r = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

function archive(): string {
  const dir = join(tempDir('pico-prune-'), 'archive');
  mkdirSync(dir);
  for (let i = 1; i <= 5; i++) {
    writeFileSync(join(dir, `app.log.${i}`), 'x'.repeat(100 + i));
    const t = new Date(Date.UTC(2026, 2, 1 + i)); // app.log.5 newest
    utimesSync(join(dir, `app.log.${i}`), t, t);
  }
  return dir;
}

describe('prune_result@1', () => {
  it('keeps every removed and kept file with its size, and the summary\'s counts', () => {
    const dir = archive();
    const fact = parsePrune(prune(dir, 3));
    expect(fact).toEqual({
      dir, keep: 3, files_seen: 5, removed_count: 2, removed_bytes: 102 + 101,
      removed: [{ file: 'app.log.2', bytes: 102 }, { file: 'app.log.1', bytes: 101 }],
      kept: [{ file: 'app.log.5', bytes: 105 }, { file: 'app.log.4', bytes: 104 }, { file: 'app.log.3', bytes: 103 }],
    });
    expect(readdirSync(dir).sort()).toEqual(['app.log.3', 'app.log.4', 'app.log.5']);
  });

  it('the answer names what went and what stayed; a prune with nothing to remove says so', () => {
    const dir = archive();
    const went = renderAnswer({ goal: 'prune', facts: [{ step: 'prune', seq: 5, schema: 'prune_result@1', trust: 'T1', fact: parsePrune(prune(dir, 3)) as never }], missing: [] });
    expect(went.text).toBe(`Removed 2 files from "${dir}" (203 bytes): "app.log.2", "app.log.1"; kept the newest 3 of 5: "app.log.5", "app.log.4", "app.log.3".`);
    const none = renderAnswer({ goal: 'prune', facts: [{ step: 'prune', seq: 5, schema: 'prune_result@1', trust: 'T1', fact: parsePrune(prune(dir, 3)) as never }], missing: [] });
    expect(none.text).toMatch(/^Nothing was removed from ".*"; kept the newest 3 of 3: /);
  });

  it('lines of another shape are left out, and a missing summary leaves its fields null', () => {
    expect(parsePrune('removed a (5 bytes)\nrm: cannot remove b\n')).toEqual({ dir: null, removed: [{ file: 'a', bytes: 5 }], kept: [], removed_count: 1, removed_bytes: 5, keep: null, files_seen: null });
  });
});

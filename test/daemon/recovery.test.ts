// Recovery: what counts as finished. A power cut can leave result.json renamed in but empty
// (it is written without fsync; the ledger is the durable truth), and such a session is re-closed.
import { readFileSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { daemonPaths } from '../../src/daemon/paths.js';
import { findUnfinished } from '../../src/daemon/recovery.js';
import { openRuntime } from '../../src/root/runtime.js';
import { exampleJob, makeRoot, newSession } from '../helpers/root.js';

describe('recovery', () => {
  it('an empty result.json after a power cut is re-closed from the ledger, which gains nothing', async () => {
    const root = makeRoot();
    const rt = await openRuntime(root);
    try {
      const id = newSession(rt, exampleJob());
      await rt.runSession(id);
      expect((await findUnfinished(daemonPaths(root))).unfinished).toEqual([]);
      const ledger = readFileSync(join(rt.sessionDir(id), 'events.jsonl'), 'utf8');
      truncateSync(join(rt.sessionDir(id), 'result.json'), 0);
      expect((await findUnfinished(daemonPaths(root))).unfinished.map((u) => u.id)).toEqual([id]);
      const again = await rt.runSession(id);
      expect(again.outcome).toBe('answered');
      expect(JSON.parse(readFileSync(join(rt.sessionDir(id), 'result.json'), 'utf8')).outcome).toBe('answered');
      expect(readFileSync(join(rt.sessionDir(id), 'events.jsonl'), 'utf8')).toBe(ledger);
    } finally {
      await rt.close();
    }
  });
});

/**
 * Issue 6, "Done when": "After the daemon runs a job, its facts are in the
 * index without a manual step." The real daemon runs the example job; the
 * test then opens memory/episodic.db and finds the facts, cited to the ledger.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dropIntoInbox } from '../../src/daemon/submit.js';
import { MemoryIndex } from '../../src/memory/memory-index.js';
import { initRoot } from '../../src/root/init.js';
import { tempRoot } from './helpers.js';
import { startDaemon } from './spawn.js';

describe('memory ingest by the daemon', () => {
  it('a job the daemon ran is in the memory index with no manual step', async () => {
    const root = tempRoot('pico-e2e-memory-');
    initRoot(root);
    const d = startDaemon(root);
    await d.waitFor((l) => l.event === 'ready');
    const { id } = await dropIntoInbox(readFileSync(join(root, 'examples/jobs/why-is-the-disk-full.json')), root);
    await d.waitFor((l) => l.event === 'finished' && l.session === id);
    await d.waitFor((l) => l.event === 'ingested' || l.event === 'memory');
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
    const ix = MemoryIndex.open(join(root, 'memory', 'episodic.db'), { readonly: true });
    try {
      const hits = ix.recall('No space left on device', { budgetClass: 'interactive', limit: 10 });
      const hit = hits.find((h) => h.schema === 'log_summary@2');
      expect(hit, 'the log_summary@2 fact of the job').toBeDefined();
      expect(hit!.provenance.cite()).toMatch(new RegExp(`^sessions/${id}/events\\.jsonl#\\d+$`));
      expect(hit!.trust).toBe('T1');
      expect(ix.fieldRange('fullest.used_percent', { above: 90 }).length).toBeGreaterThan(0);
    } finally {
      ix.close();
    }
  }, 60_000);
});

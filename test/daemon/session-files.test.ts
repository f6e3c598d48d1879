/** sessionFiles (src/daemon/paths.ts) concatenates a plain session id: the paths are what join() makes. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { daemonPaths, sessionFiles } from '../../src/daemon/paths.js';

describe('sessionFiles', () => {
  const paths = daemonPaths('/srv/pico/./root/');
  const joined = (id: string) => {
    const dir = join(paths.sessions, id);
    return { dir, job: join(dir, 'job.json'), result: join(dir, 'result.json'), ledger: join(dir, 'events.jsonl') };
  };

  it('gives the paths join() gives, for session ids and for names that are not plain', () => {
    for (const id of ['20261206-211105-57559c31184d', 'a b', '.hidden', '...', '.', '..', 'x/../y', 'x//y', '']) {
      expect(sessionFiles(paths, id)).toEqual(joined(id));
    }
  });
});

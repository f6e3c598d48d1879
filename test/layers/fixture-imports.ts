// A file the layer check reads to prove it sees every kind of import (test/layers/layers.test.ts):
// a type-only import, a re-export and a dynamic import. It is never run.
import type { tempDir } from '../helpers/temp.js';
export { until } from '../helpers/until.js';

export type TempDir = typeof tempDir;
export const loadRoot = (): Promise<unknown> => import('../helpers/root.js');

/**
 * `pico doctor`: every check of this machine and root, in the order a
 * person fixes things — Node, the native modules, the sandbox, the disk,
 * the root's folders, the models. Each group is its own module here; this
 * one runs them and says whether any failed (the command exits 1 then).
 */
import type { Check } from './check.js';
import { diskCheck, rootChecks } from './root.js';
import { llamaCheck, nodeCheck, sqliteCheck } from './runtime.js';
import { modelChecks } from './models.js';
import { sandboxChecks } from './sandbox.js';

export type { Check, Level } from './check.js';

/** Run every check on `root`; `say` hears progress lines (a model being hashed). */
export async function runDoctor(root: string, say?: (line: string) => void): Promise<{ checks: Check[]; failed: boolean }> {
  const models = await modelChecks(root, say);
  const checks: Check[] = [
    nodeCheck(),
    await sqliteCheck(),
    await llamaCheck(models.gguf > 0),
    ...(await sandboxChecks()),
    diskCheck(root),
    ...rootChecks(root),
    ...models.checks,
  ];
  return { checks, failed: checks.some((c) => c.level === 'fail') };
}

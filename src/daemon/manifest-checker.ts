/**
 * The manifest check, as a process of its own: `node manifest-checker.js ROOT`.
 *
 * The daemon stays small (its idle memory is a goal): checking a set of
 * manifests loads the registry, zod, ajv and the agent's loaders, which it
 * would then carry for as long as it runs. So manifest-drop.ts runs the check
 * here, one short process per change, and reads its one line of JSON: what
 * took effect and what was refused (root/accept-manifests.ts decides and
 * records). A failure is a line with `error` and exit 1.
 */
import { acceptManifests } from '../root/accept-manifests.js';
import { daemonPaths } from './paths.js';

async function main(): Promise<void> {
  const root = process.argv[2];
  if (!root) {
    process.stdout.write(JSON.stringify({ error: 'usage: manifest-checker.js ROOT (the daemon runs it)' }) + '\n');
    process.exitCode = 2;
    return;
  }
  try {
    const r = await acceptManifests(root, daemonPaths(root).lastGood);
    process.stdout.write(JSON.stringify(r) + '\n');
  } catch (err) {
    process.stdout.write(JSON.stringify({ error: (err as Error).message, code: (err as NodeJS.ErrnoException).code ?? null }) + '\n');
    process.exitCode = 1;
  }
}

void main();

/**
 * Doctor checks of the model providers: every gguf manifest's weights file
 * is there and its bytes hash to the sha256 the manifest pins (design P6;
 * the runtime refuses to load it otherwise, src/adapters/gguf-weights.ts).
 * Hashing reads the whole file — seconds to minutes for a model on an SD
 * card — so the command says which file it hashes before it starts, and a
 * hash is kept in sessions/.daemon/weights-hashes.json keyed by real path,
 * size and mtime: a second run is instant until the file changes. A cache
 * that cannot be written (another user's root) only means hashing again.
 * The manifests are loaded as `pico manifests check` loads them; if they do
 * not load, that is this group's failure.
 */
import { mkdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeFileAtomicSync } from '../base/durable-file.js';
import { resolveWeightsPath, sha256File } from '../adapters/gguf-weights.js';
import { humanBytes } from '../status/disk.js';
import { ok, type Check } from './check.js';

type Cache = Record<string, { size: number; mtimeMs: number; sha256: string }>;

export const HASH_CACHE = join('sessions', '.daemon', 'weights-hashes.json');

function readCache(file: string): Cache {
  try {
    const c = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return typeof c === 'object' && c !== null && !Array.isArray(c) ? (c as Cache) : {};
  } catch {
    return {};
  }
}

/** The gguf providers of the root as `{id, file, sha256}`; null (and the failure) when the manifests do not load. */
async function ggufManifests(root: string): Promise<{ list: { id: string; file: string; sha256: string }[] } | { failure: Check }> {
  const { loadRoot, ManifestError } = await import('../registry/load.js');
  try {
    const loaded = loadRoot(root);
    const list = [...loaded.registry.providers.values()].flatMap((p) => (p.kind === 'gguf' ? [{ id: p.id, file: p.file, sha256: p.sha256 }] : []));
    await loaded.scope.unwind();
    return { list };
  } catch (err) {
    if (!(err instanceof ManifestError)) throw err;
    return { failure: { group: 'models', name: 'manifests', level: 'fail', detail: `${err.issues.length} manifest problem(s), first: ${err.issues[0]?.file}: ${err.issues[0]?.message}`, fix: `\`pico manifests check --root ${root}\` lists each with its fix` } };
  }
}

/** One line per gguf provider: its file present and matching its pinned sha256. `say`: progress for a person (hashing takes time). */
export async function modelChecks(root: string, say: (line: string) => void = () => undefined): Promise<{ checks: Check[]; gguf: number }> {
  const found = await ggufManifests(root);
  if ('failure' in found) return { checks: [found.failure], gguf: 0 };
  if (found.list.length === 0) return { checks: [ok('models', 'weights', 'no gguf model provider in this root (`pico provision FILE.gguf --id ID --implements CAP` adds one)')], gguf: 0 };
  const cacheFile = join(root, HASH_CACHE);
  const cache = readCache(cacheFile);
  let dirty = false;
  const checks: Check[] = [];
  for (const m of found.list) {
    const file = resolveWeightsPath(root, m.file);
    const manifest = `manifests/providers/${m.id}.json`;
    let real: string;
    let st;
    try {
      real = realpathSync(file);
      st = statSync(real);
    } catch (err) {
      checks.push({ group: 'models', name: m.id, level: 'fail', detail: `weights file ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, fix: `put the model back at ${file}, or correct "file" in ${manifest} (or \`pico provision FILE.gguf --id ${m.id}\` again)` });
      continue;
    }
    let sha = cache[real]?.size === st.size && cache[real]?.mtimeMs === st.mtimeMs ? cache[real]!.sha256 : null;
    const cached = sha !== null;
    if (!sha) {
      say(`hashing ${file} (${humanBytes(st.size)}) for ${m.id}; a large model takes a while…`);
      sha = await sha256File(real);
      cache[real] = { size: st.size, mtimeMs: st.mtimeMs, sha256: sha };
      dirty = true;
    }
    if (sha === m.sha256) checks.push(ok('models', m.id, `${file} (${humanBytes(st.size)}) matches its pinned sha256${cached ? ' (hash cached by size and mtime)' : ''}`));
    else {
      checks.push({
        group: 'models', name: m.id, level: 'fail', detail: `${file} has sha256 ${sha}, but ${manifest} pins ${m.sha256}: the runtime refuses to load it`,
        fix: `restore the original file, or if you trust this one, \`pico provision ${file} --id ${m.id}\` again to pin it`,
      });
    }
  }
  if (dirty) {
    try {
      mkdirSync(dirname(cacheFile), { recursive: true });
      writeFileAtomicSync(cacheFile, JSON.stringify(cache, null, 2) + '\n', false);
    } catch {
      // not ours to write (another user's root): the next run hashes again
    }
  }
  return { checks, gguf: found.list.length };
}

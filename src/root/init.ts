/**
 * `pico init DIR`: a root laid out like the repository — manifests/,
 * providers/ (shell scripts; code providers ship inside the package),
 * prompts/, examples/, sessions/inbox/, memory/, models/ (provisioned GGUF files) — filled with the shipped
 * defaults. It never overwrites a file that exists, so running it on an
 * existing root only adds what is missing.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_DIR } from './runtime.js';

const COPY = ['manifests', 'prompts', 'examples'];

export interface InitReport {
  root: string;
  created: string[];
  kept: string[];
}

/** Create or complete a root at `dir` from the package's shipped defaults. */
export function initRoot(dir: string, from = PACKAGE_DIR): InitReport {
  const report: InitReport = { root: dir, created: [], kept: [] };
  for (const d of ['sessions/inbox', 'sessions/rejected', 'memory', 'models', 'providers']) mkdirSync(join(dir, d), { recursive: true, ...(d === 'sessions/rejected' ? { mode: 0o700 } : {}) });
  const copy = (src: string, dst: string, rel: string) => {
    if (!existsSync(src)) return;
    if (statSync(src).isDirectory()) {
      mkdirSync(dst, { recursive: true });
      for (const name of readdirSync(src).sort()) copy(join(src, name), join(dst, name), `${rel}/${name}`);
      return;
    }
    if (existsSync(dst)) {
      report.kept.push(rel);
      return;
    }
    copyFileSync(src, dst);
    report.created.push(rel);
  };
  for (const d of COPY) copy(join(from, d), join(dir, d), d);
  // Shell providers: the executables next to the code providers.
  const providers = join(from, 'providers');
  if (existsSync(providers)) {
    for (const name of readdirSync(providers).sort()) {
      if (!name.endsWith('.sh')) continue;
      copy(join(providers, name), join(dir, 'providers', name), `providers/${name}`);
      chmodSync(join(dir, 'providers', name), 0o755);
    }
  }
  return report;
}

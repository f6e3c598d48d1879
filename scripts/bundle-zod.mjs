#!/usr/bin/env node
/**
 * The last step of `npm run build`: zod as one minified module.
 *
 * Every module of picoharness reaches zod through src/base/zod.ts (its header says why). tsc
 * compiles that file to a plain re-export of the zod package, some 95 modules; this script puts
 * zod bundled into one minified module (esbuild, a development dependency like tsc) in place of
 * the compiled file, dist/src/base/zod.js. It is quick and idempotent: a bundle of the installed
 * zod already in place is left alone, and tsc, which rewrites the file only when zod.ts changes,
 * is undone by running this again. Without esbuild the plain re-export stays, which works the
 * same, only heavier, and the script says so.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'dist', 'src', 'base', 'zod.js');
const version = JSON.parse(readFileSync(join(ROOT, 'node_modules', 'zod', 'package.json'), 'utf8')).version;
const MARK = `// zod ${version}, bundled by scripts/bundle-zod.mjs (src/base/zod.ts says why)\n`;

if (!existsSync(OUT)) {
  process.stderr.write(`bundle-zod: ${OUT} is not there; run tsc first (npm run build)\n`);
  process.exit(1);
}
if (readFileSync(OUT, 'utf8').startsWith(MARK)) process.exit(0);
let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  process.stdout.write('bundle-zod: esbuild is not installed (npm ci installs it); zod stays as separate modules, which works the same but starts slower\n');
  process.exit(0);
}
const r = await esbuild.build({
  stdin: { contents: "export { z } from 'zod';", resolveDir: ROOT, sourcefile: 'zod-bundle-entry.js' },
  bundle: true, format: 'esm', platform: 'node', target: 'node20', minify: true, write: false, logLevel: 'error',
});
const tmp = `${OUT}.${process.pid}.tmp`;
writeFileSync(tmp, MARK + r.outputFiles[0].text);
renameSync(tmp, OUT);
// the map tsc wrote was of its re-export; an empty one stands in its place, because tsc -b counts a
// missing output as out of date and would rebuild on every `npm start`
writeFileSync(`${OUT}.map`, JSON.stringify({ version: 3, file: 'zod.js', sources: [], names: [], mappings: '' }));

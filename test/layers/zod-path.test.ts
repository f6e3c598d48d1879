/**
 * zod has one way in (src/base/zod.ts says why): `npm run build` bundles that file into one
 * module, so a source file that imports the package itself loads its some 95 modules beside the
 * bundle — about 40 ms more of every daemon and session-worker start, for nothing (issue 32).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../helpers/import-graph.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
const ZOD_PACKAGE = /(?:from\s+|import\s*\(\s*|require\s*\(\s*)['"]zod(?:\/[^'"]*)?['"]/;

/** Each line of `text` that reaches the zod package itself, as "file:line". */
function zodImports(file: string, text: string): string[] {
  return text.split('\n').flatMap((l, i) => (ZOD_PACKAGE.test(l) ? [`${file}:${i + 1}`] : []));
}

describe('zod is reached through src/base/zod.ts only', () => {
  it('no other source file imports the zod package', () => {
    const found = sourceFiles(REPO, ['src', 'providers'])
      .filter((f) => f !== 'src/base/zod.ts')
      .flatMap((f) => zodImports(f, readFileSync(`${REPO}/${f}`, 'utf8')));
    expect(found, "import { z } from '../base/zod.js' (or './zod.js' inside src/base) instead").toEqual([]);
  });

  it('the check sees the forms an import of zod takes', () => {
    expect(zodImports('a.ts', "import { z } from 'zod';\nconst q = 1;\nconst m = await import(\"zod/v4\");")).toEqual(['a.ts:1', 'a.ts:3']);
    expect(zodImports('b.ts', "import { z } from '../base/zod.js';\n// zod is here")).toEqual([]);
  });
});

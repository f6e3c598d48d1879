/**
 * The docs' reference cannot drift from the code: every field of the zod
 * schema of each file a user writes (walked through optional, default,
 * nullable, array, record and union wrappers, nested objects included) is
 * named in backticks in that file's subsection of its page's "The files you
 * write". Eval case files are checked without zod: the fields are the
 * `raw.NAME` reads of src/eval/cases.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decisionSchema, settingsSchema as approvalSettingsSchema } from '../../src/approval/decisions.js';
import { lexiconSchema } from '../../src/agent/goal/lexicon.js';
import { playbookSchema } from '../../src/agent/playbooks.js';
import { policyFileSchema } from '../../src/counterfactual/policy-file.js';
import { settingsSchema } from '../../src/daemon/settings-schema.js';
import { frontMatterSchema } from '../../src/prompts/envelope.js';
import { capabilityManifestSchema, providerManifestSchema, toolManifestSchema } from '../../src/registry/manifest.js';
import { jobSchema } from '../../src/runtime/job.js';
import { page, REPO, section } from './readme.js';

type Def = { type?: string; shape?: Record<string, unknown>; innerType?: unknown; element?: unknown; valueType?: unknown; options?: unknown[]; in?: unknown; out?: unknown };
const defOf = (s: unknown): Def => ((s as { _zod?: { def?: Def } })._zod?.def ?? {});

/** Every object key anywhere in a zod schema. */
export function fieldNames(schema: unknown, into = new Set<string>()): Set<string> {
  const def = defOf(schema);
  if (def.type === 'object' && def.shape) {
    for (const [k, v] of Object.entries(def.shape)) {
      into.add(k);
      fieldNames(v, into);
    }
  }
  for (const next of [def.innerType, def.element, def.valueType, def.in, def.out, ...(def.options ?? [])]) if (next) fieldNames(next, into);
  return into;
}

/** Each file a user writes: its name, the page and heading of its reference, and its zod schemas. */
const CASES: [string, string, RegExp, unknown[]][] = [
  ['job@1', 'docs/asking.md', /^### Jobs: .*\(job@1\)$/, [jobSchema]],
  ['tool@1', 'docs/manifests.md', /^### Tools: .*\(tool@1\)$/, [toolManifestSchema]],
  ['capability@1', 'docs/manifests.md', /^### Capabilities: .*\(capability@1\)$/, [capabilityManifestSchema]],
  ['provider@1', 'docs/manifests.md', /^### Providers: .*\(provider@1\)$/, [providerManifestSchema]],
  ['prompt@1', 'docs/manifests.md', /^### Prompts: .*\(prompt@1\)$/, [frontMatterSchema]],
  ['playbook@1', 'docs/manifests.md', /^### Playbooks: .*\(playbook@1\)$/, [playbookSchema]],
  ['lexicon@1', 'docs/manifests.md', /^### Lexicon: .*\(lexicon@1\)$/, [lexiconSchema]],
  ['settings@1', 'docs/operating.md', /^### Settings: .*\(settings@1\)$/, [settingsSchema]],
  ['approval.json and decisions', 'docs/operating.md', /^### Approvals: /, [approvalSettingsSchema, decisionSchema]],
  ['policy@1', 'docs/eval.md', /^### Policy files .*\(policy@1\)$/, [policyFileSchema]],
];

/** The "The files you write" section of a page. */
const reference = (name: string) => section(page(name), /^## The files you write$/);
const missing = (text: string, names: Iterable<string>) => [...names].filter((n) => !text.includes(`\`${n}\``));

describe('the docs name every field of every file a user writes', () => {
  it('the walk finds nested fields (it cannot pass by finding none)', () => {
    const names = fieldNames(providerManifestSchema);
    for (const n of ['kind', 'entry', 'command', 'sha256', 'max_trust_in', 'determinism', 'p90_ms', 'pass_rate']) expect(names.has(n), n).toBe(true);
    expect(fieldNames(settingsSchema).has('every_hours')).toBe(true);
    expect(fieldNames(jobSchema).has('from')).toBe(true);
  });

  for (const [name, where, heading, schemas] of CASES) {
    it(`${name}: each field is in its subsection of ${where}`, () => {
      const text = section(reference(where), heading);
      const names = new Set<string>();
      for (const s of schemas) fieldNames(s, names);
      expect(names.size).toBeGreaterThan(0);
      expect(missing(text, names), `fields of ${name} that ${where}'s "${text.split('\n')[0]}" does not name in backticks`).toEqual([]);
    });
  }

  it('eval case files: each field src/eval/cases.ts reads is in its subsection', () => {
    const source = readFileSync(join(REPO, 'src/eval/cases.ts'), 'utf8');
    const names = new Set([...source.matchAll(/\braw\.([a-z_]+)/g)].map((m) => m[1]!));
    expect(names.size).toBeGreaterThanOrEqual(10);
    expect(missing(section(reference('docs/eval.md'), /^### Eval case files/), names)).toEqual([]);
  });
});

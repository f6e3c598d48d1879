/**
 * policy@1 — another selection policy, as a settings file, for counterfactual
 * replay (design §6.7): a pass-rate floor, a p90 cap, providers to exclude,
 * and providers or kinds to prefer. It is read only by `pico replay --policy`;
 * the live runtime always selects under the defaults of src/runtime/settings.ts.
 * Strict: an unknown key is an error naming it, and a provider id the root
 * does not know is an error too (a typo would otherwise exclude nothing).
 */
import { readFileSync } from 'node:fs';
import { unreadable } from '../base/named-file.js';
import { z } from 'zod';
import type { PolicyOverride } from '../runtime/policy.js';

const KINDS = ['code', 'shell', 'gguf', 'http'] as const;

export const policyFileSchema = z.strictObject({
  policy: z.literal('policy@1'),
  /** the pass-rate floor (0..1) a provider's judged pass rate must clear; default 0.2 */
  min_pass_rate: z.number().min(0).max(1).optional(),
  /** provider ids or kinds (code, shell, gguf, http), most preferred first */
  prefer: z.array(z.string().min(1)).max(64).optional(),
  /** provider ids never selected */
  exclude: z.array(z.string().min(1)).max(256).optional(),
  /** a provider whose charged p90 is over this many ms is not selected */
  max_p90_ms: z.number().positive().optional(),
  /** free text shown beside the results */
  label: z.string().max(200).optional(),
});

export type PolicyFile = z.infer<typeof policyFileSchema>;

const EXAMPLE = '{"policy":"policy@1","min_pass_rate":0.5,"prefer":["shell"],"exclude":["disk-usage-parser"],"max_p90_ms":2000}';

export class PolicyFileError extends Error {
  override name = 'PolicyFileError';
}

/** Read and check a policy file against the providers the root knows. */
export function loadPolicyFile(path: string, knownProviders: ReadonlySet<string>): { doc: PolicyFile; override: PolicyOverride } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const u = unreadable(path, err, 'policy file');
    throw new PolicyFileError(`${u.problem}; ${u.fix} (a policy file looks like ${EXAMPLE})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new PolicyFileError(`${path}: not JSON (${(err as Error).message}); a policy file looks like ${EXAMPLE}`);
  }
  return toOverride(parsePolicy(value, path, knownProviders));
}

/** Parse a policy document; each problem names its key and the fix. */
export function parsePolicy(value: unknown, where: string, knownProviders: ReadonlySet<string>): PolicyFile {
  const r = policyFileSchema.safeParse(value);
  if (!r.success) {
    const lines = r.error.issues.map((i) => {
      const path = i.path.join('.') || '(top level)';
      if (i.code === 'unrecognized_keys') return `unknown key(s) ${i.keys.map((k) => `"${k}"`).join(', ')} (the keys are policy, min_pass_rate, prefer, exclude, max_p90_ms, label)`;
      return `${path}: ${i.message}`;
    });
    throw new PolicyFileError(`${where}: not a valid policy@1: ${lines.join('; ')}; a policy file looks like ${EXAMPLE}`);
  }
  const problems: string[] = [];
  for (const id of r.data.exclude ?? []) {
    if (!knownProviders.has(id)) problems.push(`exclude: "${id}" is not a provider of this root (pico manifests lists them)`);
  }
  for (const x of r.data.prefer ?? []) {
    if (!knownProviders.has(x) && !(KINDS as readonly string[]).includes(x)) problems.push(`prefer: "${x}" is neither a provider of this root nor a kind (${KINDS.join(', ')})`);
  }
  if (problems.length) throw new PolicyFileError(`${where}: ${problems.join('; ')}`);
  return r.data;
}

function toOverride(doc: PolicyFile): { doc: PolicyFile; override: PolicyOverride } {
  const override: PolicyOverride = {
    ...(doc.min_pass_rate !== undefined ? { min_pass_rate: doc.min_pass_rate } : {}),
    ...(doc.prefer ? { prefer: doc.prefer } : {}),
    ...(doc.exclude ? { exclude: doc.exclude } : {}),
    ...(doc.max_p90_ms !== undefined ? { max_p90_ms: doc.max_p90_ms } : {}),
  };
  return { doc, override };
}

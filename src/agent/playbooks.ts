/**
 * playbook@1: an operator-written plan template for one intent — the words
 * an admin uses for it, the tools it runs in order, and argument slots that
 * named deterministic extractors fill from the goal (extractors.ts). The
 * `code` planner (providers/playbook-planner) instantiates them; no model is
 * involved (design P3: deterministic code first).
 *
 * Playbooks live in `manifests/playbooks/*.json` and are part of the
 * composition (a changed playbook is a changed configuration). Loading is
 * strict like every manifest: an unknown key, an unknown tool, a tool that
 * names no `fact_schema`, a slot reference that is not declared or an
 * unknown extractor is an error naming the file and the fix. Matching (which
 * playbooks fit a goal) is here too: BM25 over the intent phrases ranks them,
 * and a playbook qualifies only when at least one of its intent phrases
 * occurs in the goal whole (every stemmed word of it).
 */
import { z } from 'zod';
import type { ManifestIssue } from '../registry/boundary.js';
import { readJson, type ManifestSource } from '../registry/load.js';
import type { ToolManifest } from '../registry/manifest.js';
import { rankTools, terms } from './index.js';
import { EXTRACTORS } from './extractors.js';
import { checkFollowups, followupSchema } from './followup-rules.js';

const slotRef = /^\{([a-z][a-z0-9_]*)\}$/;

export const playbookSchema = z.strictObject({
  manifest: z.literal('playbook@1'),
  id: z.string().regex(/^[a-z][a-z0-9_-]{0,39}$/, 'lower-case letters, digits, "_" or "-", starting with a letter'),
  description: z.string().min(1).max(160),
  /** phrases an admin uses for this intent ("disk full", "out of space") */
  intent: z.array(z.string().min(2).max(80)).min(1).max(24),
  slots: z.record(z.string().regex(/^[a-z][a-z0-9_]*$/), z.strictObject({
    extractor: z.enum(EXTRACTORS),
    /** no value in the goal rules the playbook out */
    required: z.boolean().default(false),
    /** the value when the goal names none (else the argument is left out) */
    default: z.union([z.string().min(1), z.number().int()]).optional(),
  })).default({}),
  steps: z.array(z.strictObject({
    tool: z.string().min(1),
    /** literal values, or "{slot}" for a slot's value */
    args: z.record(z.string(), z.unknown()).default({}),
  })).min(1).max(7),
  /** the second look: read-only steps to add when the steps' facts call for them (followup-rules.ts) */
  followups: z.array(followupSchema).min(1).max(8).optional(),
});
export type Playbook = z.infer<typeof playbookSchema>;

export interface LoadedPlaybooks {
  playbooks: Playbook[];
  /** the parsed documents by id, for the composition */
  documents: Record<string, Playbook>;
  issues: ManifestIssue[];
}

/**
 * Read `manifests/playbooks/*.json` from a manifest source (the root's folders, or the last good
 * snapshot of them) and check them against the tools; problems are collected, not thrown.
 */
export function loadPlaybooks(source: ManifestSource, tools: ReadonlyMap<string, ToolManifest>): LoadedPlaybooks {
  const out: LoadedPlaybooks = { playbooks: [], documents: {}, issues: [] };
  const names = source.list('playbooks', out.issues);
  if (!names) return out;
  for (const name of names.filter((f) => f.endsWith('.json') && !f.startsWith('.')).sort()) {
    const file = `manifests/playbooks/${name}`;
    const issue = (path: string, message: string, fix: string) => out.issues.push({ file, path, message, fix });
    const json = readJson(source, file, out.issues);
    if (json === undefined) continue;
    const parsed = playbookSchema.safeParse(json);
    if (!parsed.success) {
      for (const i of parsed.error.issues) {
        const path = i.path.join('.');
        if (i.code === 'unrecognized_keys') issue(path, `unknown key(s) ${i.keys.map((k) => `"${k}"`).join(', ')}`, 'remove or correct the key: playbook@1 knows manifest, id, description, intent, slots, steps, followups');
        else issue(path, i.message, 'see docs/manifests.md, "Playbooks", for the playbook@1 fields');
      }
      continue;
    }
    const pb = parsed.data;
    if (out.documents[pb.id]) { issue('id', `playbook "${pb.id}" is defined twice`, 'give each playbook its own id'); continue; }
    let ok = true;
    pb.steps.forEach((s, i) => {
      const tool = tools.get(s.tool);
      if (!tool) { ok = false; issue(`steps.${i}.tool`, `unknown tool "${s.tool}"`, `use one of ${[...tools.keys()].join(', ')}`); return; }
      if (!tool.fact_schema) { ok = false; issue(`steps.${i}.tool`, `tool "${s.tool}" names no fact_schema, so a plan cannot say what its output reduces to`, 'use a tool with a fact_schema, or add one to the tool manifest'); }
      for (const [k, v] of Object.entries(s.args)) {
        const ref = typeof v === 'string' ? slotRef.exec(v) : null;
        if (ref && !pb.slots[ref[1]!]) { ok = false; issue(`steps.${i}.args.${k}`, `slot "${ref[1]}" is not declared`, 'declare it under "slots" with an extractor'); }
      }
    });
    for (const p of checkFollowups(pb.steps, pb.followups ?? [], tools)) { ok = false; issue(p.path, p.message, p.fix); }
    if (!ok) continue;
    out.documents[pb.id] = pb;
    out.playbooks.push(pb);
  }
  return out;
}

export interface PlaybookMatch {
  id: string;
  score: number;
  /** the intent phrases the goal holds whole */
  phrases: string[];
}

/** The playbooks that fit a goal, best first (BM25 order among those whose intent phrase the goal holds). */
export function matchPlaybooks(goal: string, playbooks: readonly Playbook[], k = 2): PlaybookMatch[] {
  if (playbooks.length === 0) return [];
  // words inside a path are the path's, not the goal's intent ("/var/log/daemon.log" asks nothing about logs)
  goal = goal.replace(/(?:^|\s)(?:~|\.{1,2})?\/[^\s"'`]*/g, ' ');
  const goalTerms = new Set(terms(goal));
  const docs = playbooks.map((p) => ({ name: p.id, description: p.description, when: p.intent.join('; '), input_schema: {} }));
  const ranked = rankTools(goal, docs, playbooks.length);
  const out: PlaybookMatch[] = [];
  for (const r of ranked) {
    const pb = playbooks.find((p) => p.id === r.name)!;
    const phrases = pb.intent.filter((phrase) => {
      const t = terms(phrase);
      return t.length > 0 && t.every((w: string) => goalTerms.has(w));
    });
    if (phrases.length > 0) out.push({ id: pb.id, score: r.score, phrases });
  }
  return out.sort((a, b) => b.phrases.length - a.phrases.length || b.score - a.score || (a.id < b.id ? -1 : 1)).slice(0, k);
}

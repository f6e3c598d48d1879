/**
 * The goal reader's context as a shipped root gives it: the shipped lexicon (plus any extra
 * lexicon files a test adds), the shipped tools' words and the shipped playbooks' intents —
 * exactly the words planning reads a goal against, without opening a runtime.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildLexicon, goalContext, parseLexicon, type GoalContext, type LexiconDoc } from '../../src/agent/goal/index.js';
import { REPO } from './root.js';

const json = (p: string) => JSON.parse(readFileSync(p, 'utf8')) as Record<string, unknown>;

/** The shipped lexicon document, parsed. */
export function shippedLexicon(): Record<string, LexiconDoc> {
  return { 'admin.json': parseLexicon(json(join(REPO, 'manifests/lexicon/admin.json')), 'manifests/lexicon/admin.json') };
}

/** The goal context of the shipped manifests, with `extra` lexicon files merged in. */
export function shippedGoalContext(extra: Record<string, LexiconDoc> = {}): GoalContext {
  const texts: string[] = [];
  const intents: string[] = [];
  for (const f of readdirSync(join(REPO, 'manifests/tools'))) {
    const t = json(join(REPO, 'manifests/tools', f));
    texts.push(String(t.name), String(t.description), String(t.when ?? ''));
  }
  for (const f of readdirSync(join(REPO, 'manifests/playbooks'))) {
    const p = json(join(REPO, 'manifests/playbooks', f));
    intents.push(...(p.intent as string[]));
  }
  return goalContext(buildLexicon({ ...shippedLexicon(), ...extra }), [...texts, ...intents], intents);
}

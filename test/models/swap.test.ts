// The swap test (issue 5, item 7): the example job's extract step served by the code parser and then
// by a gguf model, changed by manifests alone; the model's facts carry provider@sha256:<weights>; a
// model output that fails validation twice escalates to the next provider in escalates_to.
// Uses the real stories260K model from ../shared/models (skipped with a message when absent).
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LedgerEvent } from '../../src/ledger/events.js';
import { readLedger } from '../../src/ledger/ledger.js';
import { parseJob } from '../../src/runtime/job.js';
import { openRuntime, type Runtime } from '../../src/root/runtime.js';
import { exampleJob, makeRoot, newSession, put, script, shellProvider } from '../helpers/root.js';
import { ggufManifest, HAVE_MODELS, STORIES_SHA, TINY_PROMPT, TINY_SCHEMA, tinyManifest } from './helpers.js';

let rt: Runtime | null = null;
afterEach(async () => {
  await rt?.close();
  rt = null;
});

const facts = (events: readonly LedgerEvent[]) => events.filter((e) => e.type === 'fact_added') as Extract<LedgerEvent, { type: 'fact_added' }>[];
/** The example job in a budget class that leaves room for a model on a 2-core machine. */
const backgroundJob = () => parseJob({ ...exampleJob(), budget_class: 'background' });

describe.skipIf(!HAVE_MODELS)('swap: parser → model by manifests alone', () => {
  it('a gguf provider serves a step and its fact carries provider@sha256:<weights>', async () => {
    const root = makeRoot();
    put(root, 'prompts/tiny-note.md', TINY_PROMPT);
    put(root, 'manifests/schemas/tiny_note@1.json', { ...TINY_SCHEMA, $id: 'tiny_note@1' });
    const cap = JSON.parse(readFileSync(join(root, 'manifests/capabilities/extract@1.json'), 'utf8'));
    put(root, 'manifests/capabilities/extract@1.json', { ...cap, schemas: [...cap.schemas, 'tiny_note@1'] });
    put(root, 'manifests/providers/tiny.json', tinyManifest({ schemas: ['tiny_note@1'], confidence_floor: null }));
    rt = await openRuntime(root);
    const job = parseJob({
      job: 'job@1', goal: 'note the log', budget_class: 'background',
      plan: [{ step: 'note', tool: 'read_file', args: { path: 'examples/data/syslog.txt' }, capability: 'extract@1', schema: 'tiny_note@1' }],
    });
    const id = newSession(rt, job);
    const r = await rt.runSession(id);
    const events = readLedger(rt.sessionDir(id));
    const called = events.filter((e) => e.type === 'provider_called');
    expect(called[0]).toMatchObject({ provider: `tiny@sha256:${STORIES_SHA}`, model_call: true });
    const f = facts(events)[0];
    // A grammar guarantees the form; stories260K's values are meaningless but schema-valid here.
    expect(r.outcome).toBe('answered');
    expect(f?.provider).toBe(`tiny@sha256:${STORIES_SHA}`);
  });

  it('the example job\'s log step moves from the parser to the model when the parser manifest is removed, and escalates after two failures', async () => {
    const root = makeRoot();
    rt = await openRuntime(root);
    const first = newSession(rt, backgroundJob());
    await rt.runSession(first);
    expect(facts(readLedger(rt.sessionDir(first))).find((f) => f.step === 'log')?.provider).toBe('log-summary-parser');
    await rt.close();

    // Manifests only: the parser goes, a model and a fallback arrive.
    rmSync(join(root, 'manifests/providers/log-summary-parser.json'));
    script(root, 'providers/fallback.sh', `cat >/dev/null; printf '%s' '{"host":"pi5","error_count":6,"first_error":null,"first_error_at":null,"service":null,"max_severity":"error","service_restarted":true}'`);
    put(root, 'manifests/providers/fallback.json', shellProvider('fallback', ['providers/fallback.sh'], { schemas: ['log_summary@2'], priority: 200 }));
    put(root, 'manifests/providers/tiny.json', ggufManifest({ schemas: ['log_summary@2'], escalates_to: ['fallback'], priority: 1 }));
    rt = await openRuntime(root);
    const second = newSession(rt, backgroundJob());
    const r = await rt.runSession(second);
    const log = readLedger(rt.sessionDir(second)).filter((e) => 'step' in e && e.step === 'log');
    const modelCalls = log.filter((e) => e.type === 'provider_called' && e.provider === `tiny@sha256:${STORIES_SHA}`);
    expect(modelCalls.length).toBe(2);
    const failures = log.filter((e) => ['grammar_failed', 'validation_failed', 'range_failed', 'crosscheck_failed', 'critic_rejected'].includes(e.type));
    expect(failures.length).toBeGreaterThanOrEqual(1);
    expect(log.find((e) => e.type === 'escalated')).toMatchObject({ from: 'tiny', to: 'fallback' });
    expect(facts(log)[0]?.provider).toBe('fallback');
    expect(r.outcome).toBe('answered');
  }, 120_000);
});

/**
 * Issue 11 §5: "Confidence follows the fix cost: a value read by heavy
 * heuristics … scores lower than one that needed only a fence stripped, so
 * the runtime's confidence gate can send it back for a retry." Below a
 * provider's confidence_floor nothing is committed: the output goes back once
 * with the repairs it needed named, and a clean second answer is committed.
 *
 * A small HTTP server on 127.0.0.1 speaks the OpenAI chat-completions
 * protocol and answers from a script: it stands in for a model server (none
 * can run here).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileSchema, runLadder } from '../../src/ladder/index.js';
import { readLedger } from '../../src/ledger/ledger.js';
import { parseJob } from '../../src/runtime/job.js';
import { openRuntime } from '../../src/root/runtime.js';
import { makeRoot, newSession, put, REPO } from '../helpers/root.js';
import { extractorManifest, startChatServer, type ChatServer } from '../helpers/chat-server.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

let chat: ChatServer;
let replies: string[] = [];

beforeAll(async () => {
  chat = await startChatServer(() => ({ text: replies.shift() ?? '' }));
});
afterAll(() => chat.close());

const LOG = 'Mar  3 10:15:01 pi5 systemd[1]: Started Daily apt upgrade.\n';
const CLEAN = '{"host": "pi5", "error_count": 0, "first_error": null, "first_error_at": null, "service": null, "max_severity": "info", "service_restarted": true}';
const HEAVY = 'Sure! {host: pi5, error_count: "0", first_error: None, first_error_at: None, service: None, max_severity: "INFO", service_restarted: "Yes."';

describe('the confidence gate', () => {
  it('an answer read by heavy repairs goes back once with the repairs named; the clean second answer is committed', async () => {
    const schema = compileSchema(JSON.parse(readFileSync(join(REPO, 'manifests/schemas/log_summary@2.json'), 'utf8')));
    const heavy = runLadder({ text: HEAVY }, schema, { source: LOG });
    const clean = runLadder({ text: CLEAN }, schema, { source: LOG });
    expect(heavy.ok && clean.ok).toBe(true);
    const [low, high] = [heavy.ok ? heavy.confidence! : 0, clean.ok ? clean.confidence! : 0];
    expect(low).toBeLessThan(high);
    const floor = Math.round(((low + high) / 2) * 1000) / 1000;

    const root = makeRoot('pico-gate-');
    put(root, 'manifests/providers/local.json', extractorManifest(chat.endpoint, { confidence_floor: floor }));
    const rt = await openRuntime(root);
    try {
      replies = [HEAVY, CLEAN];
      const from = chat.requests.length;
      const job = parseJob({ job: 'job@1', goal: 'gate', budget_class: 'attended', label: 'pico call --provider local', plan: [{ step: 'call', capability: 'extract@1', schema: 'log_summary@2', from: [] }] });
      const id = newSession(rt, job);
      await rt.runSession(id, { job, inputs: { call: { text: LOG, trust: 'T1', label: 'input:log' } }, onlyProvider: 'local' });
      const events = readLedger(rt.sessionDir(id));
      const rejected = events.find((e) => e.type === 'critic_rejected');
      expect(rejected && 'error' in rejected ? rejected.error : '').toMatch(/below this provider's floor.*needed these repairs: .*quoted bare/);
      const fact = events.find((e) => e.type === 'fact_added');
      expect(fact).toMatchObject({ fact: JSON.parse(CLEAN) });
      const seen = chat.requests.slice(from).map((r) => JSON.stringify(r));
      expect(seen).toHaveLength(2);
      expect(seen[1]).toContain('needed these repairs');
    } finally {
      await rt.close();
    }
  }, 30_000);
});

// `pico ask` (issue 30 item 10): the person's front door. The compiled command in a fresh root:
// answered in the foreground with its progress on stderr and the answer alone on stdout, the exit
// code by outcome, --json the result document with every sentence's sources; --submit hands it to
// the real daemon process and follows it; POST /jobs takes {"goal": …} as the same job. The
// sessions it leaves replay identically (pico replay --all).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initRoot } from '../../src/root/init.js';
import { readLedger } from '../../src/ledger/ledger.js';
import { tempRoot } from '../daemon/helpers.js';
import { picoAsync, readyDaemon, stopDaemon } from '../daemon/spawn.js';
import { postJob, startApiDaemon, call } from '../api/client.js';

interface ResultDoc { session_id: string; goal: string; outcome: string; answer: string; sentences: { text: string; from: { step: string; seq: number }[]; fixed?: string }[] }

function freshRoot(): string {
  const root = tempRoot('pico-ask-');
  initRoot(root);
  return root;
}

/** Every sentence of a result names its facts (each a fact_added of the session's ledger) or the fixed phrase it is. */
function sourced(root: string, doc: ResultDoc): void {
  const events = readLedger(join(root, 'sessions', doc.session_id));
  expect(doc.sentences.length).toBeGreaterThan(0);
  for (const s of doc.sentences) {
    if (s.from.length === 0) expect(s.fixed, s.text).toBeTruthy();
    for (const f of s.from) expect(events[f.seq], `${s.text} <- ${f.step}#${f.seq}`).toMatchObject({ type: 'fact_added', step: f.step });
  }
}

describe('pico ask', () => {
  it('pico ask answers in the foreground and exits by outcome', async () => {
    const root = freshRoot();
    const ok = await picoAsync(['ask', 'how much ram is free', '--root', root]);
    expect(ok.stderr).toMatch(/memory_usage started/);
    expect(ok.stdout).toMatch(/^Memory is [\d.]+% used/);
    expect(ok.stdout).toMatch(/\[answered\] session \d{8}-\d{6}-[0-9a-f]{12}/);
    expect(ok.code).toBe(0);
    // a part nothing here can check makes the answer partial: exit 1, and the answer says which
    const part = await picoAsync(['ask', 'how much ram is free', 'and', 'whats', 'the', 'weather', 'tomorrow', '--root', root, '--json']);
    const doc = JSON.parse(part.stdout) as ResultDoc;
    expect(doc.goal).toBe('how much ram is free and whats the weather tomorrow');
    expect(doc.outcome).toBe('partial');
    expect(doc.answer).toMatch(/I could not check "whats the weather tomorrow"/);
    expect(part.code).toBe(1);
    sourced(root, doc);
    // nothing here answers it: declined, exit 1, in plain words
    const no = await picoAsync(['ask', 'tell me a joke', '--root', root]);
    expect(no.code).toBe(1);
    expect(no.stdout).toMatch(/\[declined\]/);
    // no question, or a budget class that does not exist: the user's mistake, exit 2, no session made
    const before = readdirSync(join(root, 'sessions')).length;
    const none = await picoAsync(['ask', '--root', root]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/ask a question, e\.g\. pico ask "Why is the disk full\?"/);
    const badBudget = await picoAsync(['ask', 'how much ram is free', '--budget-class', 'soon', '--root', root]);
    expect(badBudget.code).toBe(2);
    expect(badBudget.stderr).toMatch(/budget_class/);
    expect(readdirSync(join(root, 'sessions')).length).toBe(before);
    // what was asked here replays to the same ledger, line by line
    const replay = await picoAsync(['replay', '--all', '--root', root]);
    expect(replay.stdout).toMatch(/3 session\(s\): 3 identical, 0 differ/);
    expect(replay.code).toBe(0);
  }, 180_000);

  it('pico ask --submit follows the daemon\'s answer (the real daemon process), and refuses when no daemon serves the root', async () => {
    const root = freshRoot();
    const alone = await picoAsync(['ask', '--submit', 'how much ram is free', '--root', root]);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toMatch(/no daemon serves .*ask without --submit to answer in the foreground/);
    expect(existsSync(join(root, 'sessions', 'inbox')) ? readdirSync(join(root, 'sessions', 'inbox')).filter((f) => f.endsWith('.json')) : []).toEqual([]);
    const d = await readyDaemon(root);
    try {
      const r = await picoAsync(['ask', '--submit', 'how much ram is free', '--root', root]);
      expect(r.stderr).toMatch(/job \d{8}-\d{6}-[0-9a-f]{12} submitted; following it/);
      expect(r.stderr).toMatch(/fact_added .*memory_usage/);
      expect(r.stdout).toMatch(/^Memory is [\d.]+% used/);
      expect(r.code).toBe(0);
      const j = await picoAsync(['ask', '--submit', '--json', 'how much ram is free and whats the weather tomorrow', '--root', root]);
      expect(j.stdout, j.stderr).toMatch(/^\{/);
      const doc = JSON.parse(j.stdout) as ResultDoc;
      expect(doc.outcome).toBe('partial');
      expect(j.code).toBe(1);
      // what the daemon answered is the session's own result, and its job the one pico ask makes
      expect(JSON.parse(readFileSync(join(root, 'sessions', doc.session_id, 'result.json'), 'utf8'))).toEqual(doc);
      expect(JSON.parse(readFileSync(join(root, 'sessions', doc.session_id, 'job.json'), 'utf8'))).toMatchObject({ job: 'job@1', goal: 'how much ram is free and whats the weather tomorrow', budget_class: 'attended', label: 'pico ask --submit' });
      sourced(root, doc);
    } finally {
      await stopDaemon(d);
    }
  }, 180_000);

  it('POST /jobs takes {"goal": …} as the job pico ask makes; other fields beside a goal are the inbox\'s to refuse', async () => {
    const root = freshRoot();
    const api = await startApiDaemon(root, '127.0.0.1:0');
    try {
      const r = await postJob(api, JSON.stringify({ goal: 'how much ram is free' }));
      expect(r.status).toBe(202);
      const id = (JSON.parse(r.body) as { id: string }).id;
      let state: { state: string; result?: ResultDoc } = { state: 'queued' };
      for (let i = 0; i < 400 && state.state !== 'done'; i++) {
        state = JSON.parse((await call(api, 'GET', `/jobs/${id}`)).body) as typeof state;
        if (state.state !== 'done') await new Promise((ok) => setTimeout(ok, 100));
      }
      expect(state.result!.outcome).toBe('answered');
      expect(JSON.parse(readFileSync(join(root, 'sessions', id, 'job.json'), 'utf8'))).toMatchObject({ job: 'job@1', goal: 'how much ram is free', budget_class: 'attended', label: 'POST /jobs' });
      const bad = await postJob(api, JSON.stringify({ goal: 'how much ram is free', budget: 'soon' }));
      expect(bad.status).toBe(400);
      expect(bad.body).toMatch(/job/);
    } finally {
      await stopDaemon(api.d);
    }
  }, 180_000);
});

/**
 * Issue 15 item 4 end to end: "A loopback API, off by default (`pico daemon
 * --listen 127.0.0.1:PORT` or `--listen unix:PATH`, Node's own `http`):
 * `GET /health`, `GET /metrics` in Prometheus text format …, `POST /jobs`
 * (exactly the inbox's validation and rejection reasons), `GET /jobs/ID`,
 * `GET /jobs/ID/events` (server-sent events, like `pico watch`). A unix
 * socket's permissions, or a token file in the root, guard it."
 * Every test runs the real compiled daemon on a real loopback port or socket.
 */
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { dropIntoInbox } from '../../src/daemon/submit.js';
import { newSessionId } from '../../src/ledger/session-id.js';
import { initRoot } from '../../src/root/init.js';
import { goodJob, slowExampleJob, tempRoot } from '../daemon/helpers.js';
import { picoAsync as pico, startDaemon, stepStarted, type RunningDaemon } from '../daemon/spawn.js';
import { call, listeningSockets, metric, openStream, postJob, startApiDaemon } from './client.js';

const ID = /\d{8}-\d{6}-[0-9a-f]{12}/;

/** A root made like `pico init`, and the example job's bytes. */
function exampleRoot(): { root: string; job: Buffer } {
  const root = tempRoot('pico-e2e-api-');
  initRoot(root);
  return { root, job: readFileSync(join(root, 'examples', 'jobs', 'why-is-the-disk-full.json')) };
}

/** Poll until `f` returns a value (not undefined/null/false), or fail after `ms`. */
async function until<T>(f: () => T | null | undefined | false | Promise<T | null | undefined | false>, ms = 20_000, what = 'condition'): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== null && v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`${what} not met within ${ms} ms`);
    await sleep(50);
  }
}

/** The reason file the inbox wrote for `<id>.json`. */
function reasonFor(root: string, id: string): { problem: string; fix: string } | null {
  const dir = join(root, 'sessions', 'rejected');
  if (!existsSync(dir)) return null;
  for (const n of readdirSync(dir)) {
    if (!n.endsWith('.reason.json')) continue;
    const r = JSON.parse(readFileSync(join(dir, n), 'utf8')) as { original_name: string; problem: string; fix: string };
    if (r.original_name === `${id}.json`) return r;
  }
  return null;
}

async function stop(d: RunningDaemon): Promise<number | string> {
  d.child.kill('SIGTERM');
  return d.exited;
}

describe('the loopback API, on a real daemon', () => {
  it('is off by default: without --listen no port is opened and no token file is made', async () => {
    const { root } = exampleRoot();
    const d = startDaemon(root);
    await d.waitFor((l) => l.event === 'ready');
    expect(listeningSockets(d.child.pid!)).toBe(0);
    expect(existsSync(join(root, 'sessions', '.daemon', 'api-token'))).toBe(false);
    expect(d.lines.some((l) => l.event === 'api_listening')).toBe(false);
    expect(await stop(d)).toBe(0);
  }, 60_000);

  it('with --listen on 127.0.0.1 it opens one port; /health answers without a token, every other route asks for it', async () => {
    const { root } = exampleRoot();
    const api = await startApiDaemon(root, '127.0.0.1:0');
    expect(listeningSockets(api.d.child.pid!)).toBe(1);
    expect(api.host).toMatch(/^127\.0\.0\.1:\d+$/);
    const st = statSync(api.tokenFile!);
    expect(st.mode & 0o777).toBe(0o640);
    expect(api.token).toMatch(/^[0-9a-f]{64}$/);

    const h = await call(api, 'GET', '/health', { auth: false });
    expect(h.status).toBe(200);
    expect(JSON.parse(h.body)).toMatchObject({ state: 'running', queue: { interactive: 0, attended: 0, background: 0, batch: 0 }, paused: null });
    expect(JSON.parse(h.body).worker).toHaveProperty('pid');

    for (const [method, path] of [['GET', '/metrics'], ['POST', '/jobs'], ['GET', `/jobs/${newSessionId()}`], ['GET', `/jobs/${newSessionId()}/events`]] as const) {
      const none = await call(api, method, path, { auth: false });
      expect(none.status, `${method} ${path} without a token`).toBe(401);
      expect(none.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(JSON.parse(none.body).error.fix).toContain(api.tokenFile!);
      const wrong = await call(api, method, path, { auth: false, headers: { authorization: `Bearer ${'0'.repeat(64)}` } });
      expect(wrong.status, `${method} ${path} with a wrong token`).toBe(401);
    }
    expect((await call(api, 'GET', '/metrics')).status).toBe(200);
    // the token is kept across restarts: clients need not read it again
    expect(await stop(api.d)).toBe(0);
    const again = await startApiDaemon(root, '127.0.0.1:0');
    expect(again.token).toBe(api.token);
    expect(await stop(again.d)).toBe(0);
  }, 60_000);

  it('a job POSTed runs: GET /jobs/ID shows its answer, and /metrics counts the job and its steps', async () => {
    const { root, job } = exampleRoot();
    const api = await startApiDaemon(root, '127.0.0.1:0');
    const before = (await call(api, 'GET', '/metrics')).body;
    expect(metric(before, 'pico_jobs_finished_total')).toBe(0);

    const r = await postJob(api, job);
    expect(r.status).toBe(202);
    const { id, links } = JSON.parse(r.body) as { id: string; links: { self: string; events: string } };
    expect(id).toMatch(ID);
    expect(r.headers.location).toBe(`/jobs/${id}`);
    expect(links).toEqual({ self: `/jobs/${id}`, events: `/jobs/${id}/events` });

    let view: Record<string, unknown> = {};
    await until(async () => {
      view = JSON.parse((await call(api, 'GET', links.self)).body) as Record<string, unknown>;
      return view.state === 'done';
    }, 30_000, 'the job done');
    // the state is read from the files: result.json as the daemon wrote it
    const onDisk = JSON.parse(readFileSync(join(root, 'sessions', id, 'result.json'), 'utf8')) as { answer: string };
    expect(view).toMatchObject({ id, state: 'done', outcome: 'answered', budget_class: 'interactive', goal: 'Why is the disk full?' });
    expect((view.result as { answer: string }).answer).toBe(onDisk.answer);
    expect(onDisk.answer).toMatch(/94% full/);

    const text = await until(async () => {
      const t = (await call(api, 'GET', '/metrics')).body;
      return metric(t, 'pico_jobs_finished_total', { outcome: 'answered' }) === 1 ? t : null;
    });
    expect(metric(text, 'pico_jobs_finished_total', { outcome: 'answered', budget_class: 'interactive' })).toBe(1);
    // three steps, each committed: disk and log by their parsers, the answer by its renderer
    expect(metric(text, 'pico_step_duration_seconds_count')).toBe(3);
    expect(metric(text, 'pico_step_duration_seconds_count', { capability: 'extract@1', tool: 'read_file', outcome: 'committed' })).toBe(2);
    expect(metric(text, 'pico_steps_total', { outcome: 'committed' })).toBe(3);
    expect(metric(text, 'pico_steps_total', { outcome: 'failed' })).toBe(0);
    expect(metric(text, 'pico_provider_call_duration_seconds_count', { provider: 'disk-usage-parser', outcome: 'ok' })).toBe(1);
    expect(metric(text, 'pico_step_pass_ratio', { provider: 'answer-renderer' })).toBe(1);
    expect(metric(text, 'pico_worker_starts_total')).toBeGreaterThanOrEqual(1);
    expect(metric(text, 'pico_queue_depth')).toBe(0);
    expect(text).toMatch(/^# TYPE pico_step_duration_seconds histogram$/m);
    expect(text).toMatch(/^# TYPE pico_jobs_finished_total counter$/m);
    expect(await stop(api.d)).toBe(0);
  }, 60_000);

  it('a malformed job gets exactly the reason the inbox writes for the same bytes (400, 413, 415)', async () => {
    const { root } = exampleRoot();
    const api = await startApiDaemon(root, '127.0.0.1:0');
    const big = JSON.stringify({ ...goodJob(), goal: 'x'.repeat(300 * 1024) });
    const bodies: [string, Buffer, number][] = [
      ['not JSON', Buffer.from('{"job":"job@1",'), 400],
      ['bad UTF-8', Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]), 400],
      ['schema', Buffer.from(JSON.stringify({ ...goodJob(), budget_class: 'whenever' })), 400],
      ['unknown tool', Buffer.from(JSON.stringify({ ...goodJob(), plan: [{ step: 's1', tool: 'no_such_tool', args: {}, capability: 'extract@1', schema: 'log_summary@2' }] })), 400],
      ['too big', Buffer.from(big), 413],
    ];
    const inboxIds: string[] = [];
    for (const [, bytes] of bodies) inboxIds.push((await dropIntoInbox(bytes, root)).id);
    for (const [i, [what, bytes, code]] of bodies.entries()) {
      const r = await postJob(api, bytes);
      expect(r.status, what).toBe(code);
      const got = (JSON.parse(r.body) as { error: { problem: string; fix: string } }).error;
      const apiId = ID.exec(got.problem)?.[0];
      expect(apiId, `${what}: the problem names the job as the inbox would: ${got.problem}`).toBeDefined();
      const inbox = await until(() => reasonFor(root, inboxIds[i]!), 20_000, `reason file for ${what}`);
      expect(got.problem.replaceAll(apiId!, 'ID'), what).toBe(inbox.problem.replaceAll(inboxIds[i]!, 'ID'));
      expect(got.fix, what).toBe(inbox.fix);
    }
    const wrongType = await postJob(api, JSON.stringify(goodJob()), { 'content-type': 'text/plain' });
    expect(wrongType.status).toBe(415);
    expect(JSON.parse(wrongType.body).error.problem).toMatch(/application\/json.*text\/plain/);
    const m = (await call(api, 'GET', '/metrics')).body;
    expect(metric(m, 'pico_api_jobs_refused_total', { code: '400' })).toBe(4);
    expect(metric(m, 'pico_api_jobs_refused_total', { code: '413' })).toBe(1);
    expect(metric(m, 'pico_api_jobs_refused_total', { code: '415' })).toBe(1);
    // nothing of a refused body is left behind, and nothing was queued
    expect(readdirSync(join(root, 'sessions', '.daemon', 'api-staging'))).toEqual([]);
    expect(readdirSync(join(root, 'sessions')).filter((n) => ID.test(n))).toEqual([]);
    expect(await stop(api.d)).toBe(0);
  }, 60_000);

  it('GET /jobs/ID is 404 for an unknown id and for anything shaped like a path, and reports a rejected job', async () => {
    const { root } = exampleRoot();
    const api = await startApiDaemon(root, '127.0.0.1:0');
    for (const id of [newSessionId(), '..%2F..%2Fsettings.json', '%2e%2e', 'inbox', '.daemon', 'rejected']) {
      const r = await call(api, 'GET', `/jobs/${id}`);
      expect(r.status, id).toBe(404);
      expect((await call(api, 'GET', `/jobs/${id}/events`)).status, `${id}/events`).toBe(404);
    }
    const { id } = await dropIntoInbox(Buffer.from('{"job":'), root);
    await until(() => reasonFor(root, id));
    // the reason file is written before the entry leaves the inbox: until then the job still reads as queued
    const r = await until(async () => {
      const doc = JSON.parse((await call(api, 'GET', `/jobs/${id}`)).body) as { state: string; rejection: { problem: string } };
      return doc.state === 'queued' ? null : doc;
    }, 10_000, 'the rejected entry to leave the inbox');
    expect(r.state).toBe('rejected');
    expect(r.rejection.problem).toBe(reasonFor(root, id)!.problem);
    const s = await openStream(api, `/jobs/${id}/events`);
    await s.ended;
    expect(s.frames.map((f) => f.event)).toEqual(['rejected']);
    expect(await stop(api.d)).toBe(0);
  }, 60_000);

  it('GET /jobs/ID/events streams the ledger to its end: the events written so far, then live ones, then `end`', async () => {
    const { root } = exampleRoot();
    const slow = slowExampleJob(root, 0.6); // steps still to come when the stream opens
    const api = await startApiDaemon(root, '127.0.0.1:0');
    const { id } = JSON.parse((await postJob(api, slow)).body) as { id: string };
    // open once the session has begun, so the stream has a past and a future
    await api.d.waitFor((l) => l.event === 'step' && l.session === id);
    const s = await openStream(api, `/jobs/${id}/events`);
    expect(s.status).toBe(200);
    await s.ended;
    const ledger = readFileSync(join(root, 'sessions', id, 'events.jsonl'), 'utf8').trim().split('\n');
    const messages = s.frames.filter((f) => f.event === 'message');
    expect(messages.map((f) => f.data)).toEqual(ledger);
    expect(messages.map((f) => f.id)).toEqual(ledger.map((_, i) => String(i)));
    const last = s.frames.at(-1)!;
    expect(last.event).toBe('end');
    expect(JSON.parse(last.data)).toMatchObject({ state: 'done', outcome: 'answered', result: `/jobs/${id}` });
    // a reconnect from the middle gets the rest; one from the end is told to stop (204)
    const rest = await openStream(api, `/jobs/${id}/events`, { 'last-event-id': String(ledger.length - 3) });
    await rest.ended;
    expect(rest.frames.filter((f) => f.event === 'message').map((f) => f.id)).toEqual([String(ledger.length - 2), String(ledger.length - 1)]);
    const over = await openStream(api, `/jobs/${id}/events`, { 'last-event-id': String(ledger.length - 1) });
    expect(over.status).toBe(204);
    expect(await stop(api.d)).toBe(0);
  }, 60_000);

  it('at most 16 event streams run at once, one more is told to retry later (503); a stopping daemon is unhealthy (503)', async () => {
    const { root } = exampleRoot();
    const slow = slowExampleJob(root, 15); // the step must still run when SIGTERM comes, however loaded the machine
    const api = await startApiDaemon(root, '127.0.0.1:0');
    const { id } = JSON.parse((await postJob(api, slow)).body) as { id: string };
    const streams = await Promise.all(Array.from({ length: 16 }, () => openStream(api, `/jobs/${id}/events`)));
    expect(streams.map((s) => s.status)).toEqual(Array(16).fill(200));
    const extra = await call(api, 'GET', `/jobs/${id}/events`);
    expect(extra.status).toBe(503);
    expect(extra.headers['retry-after']).toBe('5');
    // a stream that closes frees its place
    streams[0]!.close();
    await until(async () => (await openStream(api, `/jobs/${id}/events`).then((s) => (s.close(), s.status))) === 200, 5_000, 'a freed stream place');
    // while the daemon stops (finishing the slow step), /health says so with 503; the streams end with the daemon.
    // A job not yet started is not waited for (the daemon stops at once, /health never says stopping): SIGTERM
    // goes only once the slow step is in flight, which a loaded machine may take a while to reach.
    await api.d.waitFor(stepStarted(id), 30_000);
    api.d.child.kill('SIGTERM');
    const h = await until(async () => {
      const r = await call(api, 'GET', '/health', { auth: false });
      return r.status === 503 ? r : null;
    }, 10_000, '/health 503 while stopping');
    expect(JSON.parse(h.body)).toMatchObject({ state: 'stopping' });
    expect(await api.d.exited).toBe(0);
    await Promise.all(streams.map((s) => s.ended));
  }, 60_000);

  it('on a unix socket: mode 0660 in the root\'s group, no token asked, removed when the daemon stops', async () => {
    const { root, job } = exampleRoot();
    const path = join(root, 'api.sock');
    const api = await startApiDaemon(root, 'unix:api.sock'); // relative: from the root
    expect(api.socketPath).toBe(path);
    const st = statSync(path);
    expect(st.isSocket()).toBe(true);
    expect(st.mode & 0o777).toBe(0o660);
    expect(st.gid).toBe(statSync(root).gid);
    expect(api.token).toBeNull();
    expect(existsSync(join(root, 'sessions', '.daemon', 'api-token'))).toBe(false);
    expect(listeningSockets(api.d.child.pid!)).toBe(0);
    expect((await call(api, 'GET', '/health')).status).toBe(200);
    const r = await postJob(api, job);
    expect(r.status).toBe(202);
    const { id } = JSON.parse(r.body) as { id: string };
    const s = await openStream(api, `/jobs/${id}/events`);
    await s.ended;
    expect(JSON.parse(s.frames.at(-1)!.data)).toMatchObject({ outcome: 'answered' });
    // the stream ends with the ledger's answer; the daemon counts the job when the worker hands it back, a moment later
    const finished = /pico_jobs_finished_total\{outcome="answered",budget_class="interactive"\} 1/;
    await until(async () => finished.test((await call(api, 'GET', '/metrics')).body), 10_000, 'the finished job in /metrics');
    // a second daemon on the same socket is refused, not allowed to take it over
    const other = exampleRoot();
    const second = await pico(['daemon', '--root', other.root, '--listen', `unix:${path}`]);
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/another process serves/);
    expect(await stop(api.d)).toBe(0);
    expect(existsSync(path)).toBe(false);
    expect(readdirSync(root).filter((n) => n.startsWith('.api.sock'))).toEqual([]);
  }, 60_000);

  it('a client that sends its headers too slowly is cut off (408 and closed) while others are served', async () => {
    const { root } = exampleRoot();
    const api = await startApiDaemon(root, '127.0.0.1:0');
    const [host, port] = [api.host!.split(':')[0]!, Number(api.host!.split(':')[1])];
    const slow = connect(port, host);
    let got = '';
    slow.setEncoding('utf8').on('data', (c: string) => (got += c));
    const closed = new Promise<number>((ok) => slow.on('close', () => ok(Date.now())));
    const t0 = Date.now();
    slow.write('GET /health HTTP/1.1\r\nHost: pico\r\n'); // and never the blank line
    expect((await call(api, 'GET', '/health')).status).toBe(200);
    const at = await closed;
    expect(at - t0).toBeGreaterThanOrEqual(9_000);
    expect(at - t0).toBeLessThan(20_000);
    expect(got).toMatch(/^HTTP\/1\.1 408/);
    expect(await stop(api.d)).toBe(0);
  }, 60_000);

  it('listens where settings.json says when no flag is given, the flag wins over it, and a socket left by a crash is replaced', async () => {
    const { root } = exampleRoot();
    writeFileSync(join(root, 'settings.json'), JSON.stringify({ settings: 'settings@1', listen: 'unix:from-settings.sock' }));
    const d = startDaemon(root);
    const l = await d.waitFor((x) => x.event === 'api_listening');
    expect(l.address).toBe(`unix:${join(root, 'from-settings.sock')}`);
    await d.waitFor((x) => x.event === 'ready');
    d.child.kill('SIGKILL'); // the socket file stays behind
    await d.exited;
    expect(statSync(join(root, 'from-settings.sock')).isSocket()).toBe(true);
    const again = startDaemon(root);
    await again.waitFor((x) => x.event === 'api_listening');
    await again.waitFor((x) => x.event === 'ready');
    expect((await call({ d: again, host: null, socketPath: join(root, 'from-settings.sock'), token: null, tokenFile: null }, 'GET', '/health')).status).toBe(200);
    expect(await stop(again)).toBe(0);
    const tcp = await startApiDaemon(root, '127.0.0.1:0');
    expect(tcp.host).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(existsSync(join(root, 'from-settings.sock'))).toBe(false);
    expect(await stop(tcp.d)).toBe(0);
  }, 90_000);

  it('refuses an address that is not loopback before anything starts, naming the fix (exit 2)', async () => {
    const { root } = exampleRoot();
    for (const bad of ['0.0.0.0:8080', '10.1.2.3:80', '[::]:80', 'example.com:80', '127.0.0.300:80']) {
      const r = await pico(['daemon', '--root', root, '--listen', bad]);
      expect(r.code, bad).toBe(2);
      expect(r.stderr, bad).toMatch(/not a loopback address/);
      expect(r.stderr, bad).toMatch(/fix: .*127\.0\.0\.1:PORT/);
    }
    expect(existsSync(join(root, 'sessions', '.daemon', 'status.json'))).toBe(false);
  }, 60_000);
});

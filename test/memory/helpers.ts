/**
 * Shared helpers for the memory tests: real temporary roots on disk, ledgers
 * written the way the runtime writes them, and a dump of every table's
 * content (without surrogate ids) to compare two databases.
 */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach } from 'vitest';
import { ledgerText } from '../../bench/memory-gen.js';
import { MemoryIndex } from '../../src/memory/memory-index.js';

/** A fresh root folder with sessions/ and manifests/providers/; removed by `cleanup()`. */
export function tempRoot(): { root: string; sessions: string; manifests: string; db: string; cleanup: () => void } {
  const root = mkdtempSync(join(tmpdir(), 'pico-memory-test-'));
  const sessions = join(root, 'sessions');
  const manifests = join(root, 'manifests', 'providers');
  mkdirSync(sessions, { recursive: true });
  mkdirSync(manifests, { recursive: true });
  return { root, sessions, manifests, db: join(root, 'memory', 'episodic.db'), cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** Write a session's ledger (seq, t and session_id stamped); returns its folder. */
export function writeSession(sessions: string, id: string, events: Record<string, unknown>[]): string {
  const dir = join(sessions, id);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'events.jsonl'), ledgerText(id, events));
  return dir;
}

/** Append raw text to a session's ledger. */
export function appendRaw(sessionDir: string, text: string): void {
  appendFileSync(join(sessionDir, 'events.jsonl'), text);
}

/** Events stamped as ledger lines starting at `seq0`, for appending to an existing ledger. */
export function linesFrom(id: string, seq0: number, events: Record<string, unknown>[]): string {
  return events.map((e, i) => JSON.stringify({ seq: seq0 + i, t: `2026-01-01T00:10:${String(i).padStart(2, '0')}.000Z`, session_id: id, ...e }) + '\n').join('');
}

/** A document's tokens in a full-text index, in order, column by column (over ftsInstances' `v`). */
export const TOKENS = "group_concat(v.col || ':' || v.offset || ':' || v.term, ' ' ORDER BY v.col, v.offset) AS tokens";

/** A temp fts5vocab table of every token instance (term, doc, col, offset) of a full-text table; its name. */
export function ftsInstances(db: Database.Database, table: string): string {
  db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.${table}_instances USING fts5vocab(main, ${table}, instance)`);
  return `temp.${table}_instances`;
}

/** Every derived row, keyed by natural keys (no autoincrement ids), in a stable order. */
export function dumpContent(db: Database.Database): Record<string, unknown[]> {
  const q = (sql: string) => db.prepare(sql).all();
  return {
    episode: q(`SELECT session, goal, budget_class, outcome, composition, fact_count, failure_count, gap_count, started_at, ended_at
      FROM episode ORDER BY session`),
    fact: q(`SELECT session, seq, ledger, step, provider, capability, schema, trust, subject, observed_at, valid_until, confidence, payload
      FROM fact ORDER BY session, seq`),
    fact_field: q(`SELECT f.session, f.seq, ff.ord, ff.key, ff.num, ff.txt FROM fact_field ff JOIN fact f ON f.id = ff.fact_id
      ORDER BY f.session, f.seq, ff.ord`),
    // the full-text indexes are contentless (schema.ts): what they hold is their tokens, read through fts5vocab
    fact_fts: q(`SELECT f.session, f.seq, ${TOKENS} FROM ${ftsInstances(db, 'fact_fts')} v LEFT JOIN fact f ON f.id = v.doc
      GROUP BY v.doc ORDER BY f.session, f.seq`),
    episode_fts: q(`SELECT e.session, ${TOKENS} FROM ${ftsInstances(db, 'episode_fts')} v LEFT JOIN episode e ON e.id = v.doc
      GROUP BY v.doc ORDER BY e.session`),
    failure: q(`SELECT session, seq, ledger, t, type, kind, step, capability, tool, provider, schema, signature, detail, detail_trust,
      attempt, resolution, resolved_by FROM failure ORDER BY session, seq`),
    control_event: q('SELECT * FROM control_event ORDER BY session, seq'),
    provider_call: q('SELECT * FROM provider_call ORDER BY session, seq'),
    ledger: q('SELECT session, path, bytes, next_seq, events, skipped, steps FROM ledger ORDER BY session'),
  };
}

/** One session in this implementation's format: a T1 log step that fails once and escalates, and a T2 answer. */
export function escalatingSession(opts: { detail?: string; host?: string } = {}): Record<string, unknown>[] {
  const host = opts.host ?? 'host-a';
  return [
    { type: 'composition', hash: 'sha256:c0', machine: 'sha256:m', config: 'pico.json' },
    { type: 'user_input', text: `why is the disk full on ${host}`, trust: 'T0', budget_class: 'attended', job: {} },
    { type: 'step_started', step: 's1', tool: 'read_syslog', trust: 'T1', capability: 'extract@1', schema: 'log_summary@2' },
    { type: 'provider_called', step: 's1', provider: 'extract-350m-q4', capability: 'extract@1', schema: 'log_summary@2',
      duration_ms: 800, outcome: 'ok', attempt: 0, input_sha256: 'x', input_bytes: 10, output_blob: null, model_call: true },
    { type: 'validation_failed', step: 's1', provider: 'extract-350m-q4', capability: 'extract@1', schema: 'log_summary@2',
      error: opts.detail ?? "error_count: expected integer, got 'seven' at row 41", attempt: 0, detail_trust: 'T1' },
    { type: 'escalated', step: 's1', from: 'extract-350m-q4', to: 'extract-1.2b-q4', reason: 'ladder failed' },
    { type: 'provider_called', step: 's1', provider: 'extract-1.2b-q4', capability: 'extract@1', schema: 'log_summary@2',
      duration_ms: 2400, outcome: 'ok', attempt: 1, input_sha256: 'x', input_bytes: 10, output_blob: null, model_call: true },
    { type: 'fact_added', step: 's1', provider: 'extract-1.2b-q4', capability: 'extract@1', schema: 'log_summary@2',
      fact: { host, error_count: 7, first_error: 'disk I/O timeout', max_severity: 'error', service_restarted: false },
      trust: 'T1', confidence: null, duration_ms: 2400, valid_until: null, subject: host, fixes: [] },
    { type: 'step_started', step: 's2', tool: null, trust: 'T2', capability: 'answer@1', schema: 'answer@1' },
    { type: 'fact_added', step: 's2', provider: 'answer-template', capability: 'answer@1', schema: 'answer@1',
      fact: { text: `${host} disk pressure summary`, disk: { free_pct: 12.5 } }, trust: 'T2', confidence: 0.9,
      duration_ms: 1, valid_until: null, subject: host, fixes: [] },
    { type: 'answer_sent', outcome: 'answered', text: 'done', missing: [], trust: 'T2', spent: { wall_ms: 1, model_calls: 2, cpu_ms: 1 } },
  ];
}

/**
 * A temp root and an open index for each test of a suite (registers the
 * hooks); read `ctx.t` and `ctx.ix` inside the tests.
 */
export function useTempIndex(): { t: ReturnType<typeof tempRoot>; ix: MemoryIndex } {
  const ctx = {} as { t: ReturnType<typeof tempRoot>; ix: MemoryIndex };
  beforeEach(() => {
    ctx.t = tempRoot();
    ctx.ix = MemoryIndex.open(ctx.t.db);
  });
  afterEach(() => {
    ctx.ix.close();
    ctx.t.cleanup();
  });
  return ctx;
}

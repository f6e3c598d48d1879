/**
 * `sessions/<id>/result.json`: what a person or script reads when a job ends —
 * outcome, answer, the facts with provenance, budget spent. It is derived
 * from the ledger (and can be rewritten from it at any time); it is written
 * atomically (temp file, rename), by the runtime or, under the daemon, by the
 * daemon from the text its session worker made, and its presence is what
 * tells the daemon a session is finished.
 */
import { join } from 'node:path';
import type { EventOf, LedgerEvent } from '../ledger/events.js';
import { LEDGER_FILE } from '../ledger/ledger.js';
import { writeFileAtomicSync } from '../base/durable-file.js';

export const RESULT_FILE = 'result.json';

export interface SessionResultDoc {
  result: 'result@1';
  session_id: string;
  goal: string | null;
  outcome: 'answered' | 'partial' | 'declined' | 'cancelled';
  answer: string;
  sentences?: EventOf<'answer_sent'>['sentences']; // each with its sources (step, ledger seq) or its fixed phrase; absent for older ledgers
  missing: string[];
  trust: string;
  facts: { step: string; schema: string; provider: string; trust: string; confidence: number | null; fact: unknown; provenance: string }[];
  spent: { wall_ms: number; model_calls: number; cpu_ms: number };
  composition: string | null;
  started_at: string | null;
  ended_at: string;
}

/** Build the result document from a finished session's events. */
export function resultFromEvents(sessionId: string, events: readonly LedgerEvent[]): SessionResultDoc {
  const answer = [...events].reverse().find((e) => e.type === 'answer_sent');
  if (!answer || answer.type !== 'answer_sent') throw new Error(`session ${sessionId} has no answer_sent event yet`);
  const comp = events.find((e) => e.type === 'composition');
  const user = events.find((e) => e.type === 'user_input');
  const facts: SessionResultDoc['facts'] = [];
  for (const e of events) {
    if (e.type !== 'fact_added') continue;
    facts.push({
      step: e.step, schema: e.schema, provider: e.provider, trust: e.trust, confidence: e.confidence, fact: e.fact,
      provenance: `sessions/${sessionId}/${LEDGER_FILE}#${e.seq}`,
    });
  }
  return {
    result: 'result@1', session_id: sessionId,
    goal: user?.type === 'user_input' ? user.text : null,
    outcome: answer.outcome, answer: answer.text, ...(answer.sentences ? { sentences: answer.sentences } : {}), missing: answer.missing, trust: answer.trust,
    facts, spent: answer.spent,
    composition: comp?.type === 'composition' ? comp.hash : null,
    started_at: events[0]?.t ?? null, ended_at: answer.t,
  };
}

/** The text of result.json, the same whoever writes it. */
export function resultText(doc: SessionResultDoc): string {
  return JSON.stringify(doc, null, 2) + '\n';
}

/**
 * Write result.json whole (temp file, fsync, size check, rename) but without fsyncing the
 * folder: it is derived from the ledger, whose facts and answer are already on disk, and a
 * result lost, emptied or cut by a power cut only means the daemon re-closes that session
 * from its ledger on the next start (see daemon/recovery.ts).
 */
export function writeResult(sessionDir: string, doc: SessionResultDoc): string {
  const path = join(sessionDir, RESULT_FILE);
  writeFileAtomicSync(path, resultText(doc), false);
  return path;
}

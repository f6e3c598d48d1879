// A root with real sessions for the report suites: real jobs through the real runtime (tools
// through the execution world, shell providers as subprocesses, the real ladder and ledger
// writer), on three different days, with answers, escalations, ladder fixes, a capability gap
// and a failure whose text holds markup. The only thing not real is the time: the older
// sessions run with a clock that stamps their events some days back, so there is more than
// one day to chart.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from '../../src/ledger/clock.js';
import type { Job } from '../../src/runtime/job.js';
import { openRuntime } from '../../src/root/runtime.js';
import { exampleJob, makeRoot, newSession, put, script, shellProvider } from '../helpers/root.js';

const DAY_MS = 86_400_000;

/** A live clock that stamps every event `days` earlier than now. */
export function daysAgo(days: number): Clock {
  return { stamp: () => new Date(Date.now() - days * DAY_MS).toISOString(), measured: (_s, _k, live) => live };
}

/** Run `n` copies of the example job (or `job`) under the root's current manifests. */
async function runExample(root: string, n: number, clock?: Clock, job: Job = exampleJob()): Promise<string[]> {
  const rt = await openRuntime(root);
  try {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const id = newSession(rt, job);
      await rt.runSession(id, clock ? { clock } : {});
      ids.push(id);
    }
    return ids;
  } finally {
    await rt.close();
  }
}

export const MARKUP = '<script>document.title="pwned"</script><img src=x onerror=alert(1)>';

export interface ReportRoot {
  root: string;
  /** sessions by what they show */
  answered: string[];
  gap: string;
  fenced: string;
  escalated: string;
  /** a tool that failed with markup on its stderr: the failure's error text holds it */
  toolFailed: string;
}

/** Build the root (some 10 s of real jobs). */
export async function buildReportRoot(): Promise<ReportRoot> {
  const root = makeRoot('pico-report-');
  // three days ago: the shipped parsers answer
  const answered = await runExample(root, 2, daysAgo(3));
  // yesterday: no log parser at all, so the log step is a capability gap and the answer partial
  rmSync(join(root, 'manifests/providers/log-summary-parser.json'));
  const [gap] = await runExample(root, 1, daysAgo(1));
  // yesterday: a provider that wraps its JSON in a fence with a trailing comma (ladder fixes)
  script(root, 'providers/fenced.sh', `cat >/dev/null; printf '%s\\n' 'Here is the summary:' '\`\`\`json' '{"host": "pi5", "errorCount": 6, "first_error": null, "first_error_at": null, "service": null, "max_severity": "error", "service_restarted": true,}' '\`\`\`'`);
  put(root, 'manifests/providers/fenced.json', shellProvider('fenced', ['providers/fenced.sh'], { schemas: ['log_summary@2'] }));
  const [fenced] = await runExample(root, 1, daysAgo(1));
  // today: a provider answering with markup fails the ladder twice and escalates to a good one
  rmSync(join(root, 'manifests/providers/fenced.json'));
  script(root, 'providers/bad.sh', `cat >/dev/null; printf '%s' '${MARKUP} {"host": 5'`);
  script(root, 'providers/good.sh', `cat >/dev/null; printf '%s' '{"host":"pi5","error_count":6,"first_error":null,"first_error_at":null,"service":null,"max_severity":"error","service_restarted":true}'`);
  put(root, 'manifests/providers/good-extractor.json', shellProvider('good-extractor', ['providers/good.sh'], { schemas: ['log_summary@2'], priority: 2 }));
  put(root, 'manifests/providers/bad-extractor.json', shellProvider('bad-extractor', ['providers/bad.sh'], { schemas: ['log_summary@2'], escalates_to: ['good-extractor'], priority: 1 }));
  const [escalated] = await runExample(root, 1);
  // today: a tool that fails with markup on stderr (the error text quotes it)
  put(root, 'manifests/tools/noisy.json', {
    manifest: 'tool@1', name: 'noisy', description: 'fails loudly', command: ['sh', '-c', `echo '${MARKUP}' >&2; exit 3`],
    input_schema: { type: 'object', additionalProperties: false }, output: { media: 'text' }, reducer: 'extract@1',
    effect: 'read_only', idempotent: true, trust_out: 'T1', limits: { timeout_ms: 5000, max_output_bytes: 1000 },
  });
  const job = exampleJob();
  job.plan![1] = { ...job.plan![1]!, tool: 'noisy', args: {} };
  const [toolFailed] = await runExample(root, 1, undefined, job);
  return { root, answered, gap: gap!, fenced: fenced!, escalated: escalated!, toolFailed: toolFailed! };
}

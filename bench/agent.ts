/**
 * Agent library benchmarks: how fast retrieval ranks tools (10 and 100 tools),
 * how long an index takes to build, what one fitPrompt costs, and how fast
 * compaction and the token estimator get through a 200 KB log. They run on
 * the daemon's single thread between model calls, so they must stay in the
 * microseconds-to-milliseconds range.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { fitPrompt } from '../src/agent/budget.js';
import { compactOutput } from '../src/agent/compact.js';
import { rankTools, ToolIndex } from '../src/agent/retrieval.js';
import { estimateTokens, estimator } from '../src/agent/tokens.js';
import type { AgentTool } from '../src/agent/types.js';
import type { BenchRow } from './types.js';

// the fixture tools beside the tests; from dist/bench/ that is one level further up
const FIXTURE = [new URL('../test/agent/fixtures/tools.json', import.meta.url), new URL('../../test/agent/fixtures/tools.json', import.meta.url)]
  .map((u) => fileURLToPath(u)).find((p) => existsSync(p));

const SUBJECTS = ['nginx', 'postgres', 'docker', 'wifi', 'bluetooth', 'usb', 'gpio', 'camera', 'cron', 'samba', 'mosquitto', 'zigbee', 'ups', 'fan', 'rtc'];
const ASPECTS: [string, string, string][] = [
  ['status', 'Report whether {s} is healthy and its current state.', 'asked if {s} works'],
  ['config', 'Print the {s} configuration file and the options in effect.', 'a {s} setting may be wrong'],
  ['errors', 'Count recent {s} errors and show the latest messages.', '{s} misbehaves or logs errors'],
  ['version', 'Show the installed {s} version and build.', 'checking which {s} release runs'],
  ['metrics', 'Read {s} counters: requests, latency and throughput.', '{s} seems slow or overloaded'],
  ['devices', 'List the devices {s} sees with their identifiers.', 'a {s} device is missing'],
];

/** 90 plausible extra tools, the same on every run. */
function syntheticTools(n: number): AgentTool[] {
  const out: AgentTool[] = [];
  for (let i = 0; out.length < n; i++) {
    const s = SUBJECTS[i % SUBJECTS.length]!;
    const [a, d, w] = ASPECTS[Math.floor(i / SUBJECTS.length) % ASPECTS.length]!;
    out.push({ name: `${s}_${a}${i >= SUBJECTS.length * ASPECTS.length ? `_${i}` : ''}`, description: d.replaceAll('{s}', s), when: w.replaceAll('{s}', s), input_schema: { type: 'object', properties: { verbose: { type: 'boolean' } } } });
  }
  return out;
}

function fixtureTools(): AgentTool[] {
  if (FIXTURE) return (JSON.parse(readFileSync(FIXTURE, 'utf8')) as AgentTool[]).slice(0, 10);
  return syntheticTools(10);
}

const GOALS = ['Is the SD card almost full?', 'what is eating all the CPU', 'nginx logs errors since the upgrade', 'which services failed after the reboot', 'is the zigbee dongle still detected'];

/** Calls per second of `fn` over about `ms` milliseconds. */
function perSecond(fn: (i: number) => void, ms: number): number {
  for (let i = 0; i < 200; i++) fn(i);
  let n = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    for (let i = 0; i < 100; i++) fn(n++);
    now = performance.now();
  }
  return n / ((now - start) / 1000);
}

/** A journal-like log of about `bytes` bytes with a failure every 97 lines. */
function log(bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = i % 97 === 13 ? `Mar  3 10:${String(i % 60).padStart(2, '0')}:07 pi5 nginx[812]: error: upstream timed out while reading response header` : `Mar  3 10:${String(i % 60).padStart(2, '0')}:01 pi5 sshd[${900 + (i % 40)}]: Accepted publickey for pi from 192.168.1.20 port ${50000 + i}`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n') + '\n';
}

/** All agent rows. */
export async function benchAgent(): Promise<BenchRow[]> {
  const ten = fixtureTools();
  const hundred = [...ten, ...syntheticTools(90)];
  const index10 = ToolIndex.build(ten);
  const index100 = ToolIndex.build(hundred);
  const builds: number[] = [];
  for (let i = 0; i < 50; i++) {
    const t = performance.now();
    ToolIndex.build(hundred);
    builds.push(performance.now() - t);
  }
  builds.sort((a, b) => a - b);
  const parts = { instructions: 'You plan the steps that answer an operator\'s question. Use only the tools listed. Reply with JSON.', avoidance: 'Avoid: read_journal failed twice with tool_timeout.', goal: 'Goal: why does the backup service keep restarting?', tools: ten.slice(0, 3) };
  const budgets = [{ prompt_tokens: 500, reserve_tokens: 0 }, { prompt_tokens: 200, reserve_tokens: 0 }];
  const big = log(200 * 1024);
  const mb = Buffer.byteLength(big) / (1024 * 1024);
  const compactPerS = perSecond(() => compactOutput(big, 1024, estimator), 1000);
  const estimatePerS = perSecond(() => estimateTokens(big), 500);
  return [
    { group: 'agent', name: 'retrieval: rankTools over 10 tools (digest + cached index)', value: Math.round(perSecond((i) => rankTools(GOALS[i % GOALS.length]!, ten, 3), 500)), unit: 'ranks/s' },
    { group: 'agent', name: 'retrieval: ToolIndex.rank over 10 tools', value: Math.round(perSecond((i) => index10.rank(GOALS[i % GOALS.length]!, 3), 500)), unit: 'ranks/s' },
    { group: 'agent', name: 'retrieval: rankTools over 100 tools (digest + cached index)', value: Math.round(perSecond((i) => rankTools(GOALS[i % GOALS.length]!, hundred, 3), 500)), unit: 'ranks/s' },
    { group: 'agent', name: 'retrieval: ToolIndex.rank over 100 tools', value: Math.round(perSecond((i) => index100.rank(GOALS[i % GOALS.length]!, 3), 500)), unit: 'ranks/s' },
    { group: 'agent', name: 'retrieval: index build, 100 tools (median of 50)', value: builds[25]!, unit: 'ms' },
    { group: 'agent', name: 'fitPrompt, 3 tools, estimator (full and brief fits alternately)', value: 1e6 / perSecond((i) => fitPrompt(parts, budgets[i % 2]!, estimator), 500), unit: 'µs/call' },
    { group: 'agent', name: 'compaction: 200 KB journal to 1,024 tokens', value: mb * compactPerS, unit: 'MB/s' },
    { group: 'agent', name: 'token estimator over a 200 KB journal', value: mb * estimatePerS, unit: 'MB/s' },
  ];
}

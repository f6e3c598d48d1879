/**
 * The memory commands, run in-process against a real root: `pico memory
 * rebuild | stats`, `pico recall`, `pico failures list | report | sql | avoid`
 * and `pico cost` — readable tables by default, JSON with --json.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { captureStdout, type CapturedStdout } from '../helpers/stdout.js';
import { generateSessions } from '../../bench/memory-gen.js';
import { main as cost } from '../../src/cli/cost.js';
import { main as failures } from '../../src/cli/failures.js';
import { main as memory } from '../../src/cli/memory.js';
import { main as recall } from '../../src/cli/recall.js';
import { escalatingSession, tempRoot, writeSession } from './helpers.js';

let t: ReturnType<typeof tempRoot>;
let stdout: CapturedStdout;
beforeEach(() => {
  t = tempRoot();
  stdout = captureStdout();
});
afterEach(() => {
  vi.restoreAllMocks();
  t.cleanup();
});

/** Run a command and return its exit code and what it printed. */
async function run(cmd: (argv: string[]) => Promise<number>, argv: string[]): Promise<{ code: number; text: string }> {
  stdout.clear();
  const code = await cmd([...argv, '--root', t.root]);
  return { code, text: stdout.text() };
}

describe('memory commands', () => {
  it('pico memory rebuild reads every ledger; stats --json counts the rows', async () => {
    generateSessions(t.sessions, { sessions: 8 });
    const r = await run(memory, ['rebuild']);
    expect(r.code).toBe(0);
    expect(r.text).toMatch(/rebuilt .*episodic\.db: 8 sessions \(8 changed\), 8\d events, 24 facts, 2 failures/);
    const s = await run(memory, ['stats', '--json']);
    expect(JSON.parse(s.text)).toMatchObject({ episodes: 8, facts: 24, failures: 2, open_failures: 0 });
  });

  it('pico recall prints a table with citations, --json gives the hits, and --for-control drops T1', async () => {
    writeSession(t.sessions, 'cli-1', escalatingSession({ host: 'nas' }));
    const human = await run(recall, ['disk', 'timeout']);
    expect(human.code).toBe(0);
    expect(human.text).toMatch(/^cite\s+trust\s+schema/);
    expect(human.text).toContain('sessions/cli-1/events.jsonl#7');
    const json = JSON.parse((await run(recall, ['disk', '--json'])).text) as { provenance: { cite: string }; trust: string }[];
    expect(json.map((h) => h.trust).sort()).toEqual(['T1', 'T2']);
    const control = JSON.parse((await run(recall, ['disk', '--for-control', '--json'])).text) as { trust: string }[];
    expect(control.map((h) => h.trust)).toEqual(['T2']);
    expect((await run(recall, ['zebra'])).code).toBe(1);
    await expect(run(recall, ['x', '--limit', 'many'])).rejects.toThrow(/--limit must be a positive integer/);
  });

  it('pico failures list, report --name, sql and avoid', async () => {
    writeSession(t.sessions, 'cli-f', escalatingSession());
    const list = await run(failures, ['list']);
    expect(list.text).toContain('v_provider_health');
    expect(list.text).toContain('demotion_candidates');
    const rep = await run(failures, ['report', '--name', 'escalation_paths']);
    expect(rep.text).toMatch(/extract-350m-q4\s+extract-1\.2b-q4\s+log_summary@2\s+1/);
    const all = JSON.parse((await run(failures, ['report', '--json'])).text) as unknown[];
    expect(all.length).toBeGreaterThanOrEqual(8);
    const sql = await run(failures, ['sql']);
    expect(sql.text).toContain('CREATE VIEW v_signature');
    expect(sql.text).toContain('.param set @floor 0.8');
    const avoid = await run(failures, ['avoid', '--capability', 'extract@1']);
    expect(avoid.text.trim()).toBe('Known failures to avoid:\n- schema at extract-350m-q4 x1; worked: escalated -> extract-1.2b-q4');
    await expect(run(failures, ['report', '--name', 'nope'])).rejects.toThrow(/no report named "nope"/);
    await expect(run(failures, ['frobnicate'])).rejects.toThrow(/unknown subcommand "frobnicate"/);
  });

  it('pico cost shows measured and declared costs with their source', async () => {
    writeSession(t.sessions, 'cli-c', escalatingSession());
    writeFileSync(join(t.manifests, 'extract-350m-q4.json'), JSON.stringify({ id: 'extract-350m-q4', cost: { p50_ms: 700, p90_ms: 900 } }));
    const r = await run(cost, []);
    expect(r.code).toBe(0);
    expect(r.text).toMatch(/extract-350m-q4\s+log_summary@2\s+1\s+700\s+900\s+manifest/);
    expect(r.text).toMatch(/extract-1\.2b-q4\s+log_summary@2\s+1\s+-\s+-\s+none/);
    const one = JSON.parse((await run(cost, ['extract-350m-q4', '--json'])).text) as { estimates: { provider: string }[] };
    expect(one.estimates.map((e) => e.provider)).toEqual(['extract-350m-q4']);
  });

  it('--no-ingest on a root without an index says how to build one', async () => {
    await expect(run(recall, ['x', '--no-ingest'])).rejects.toThrow(/no memory index at .*run `pico memory rebuild/);
  });
});

/** Ladder level 4 (design §5): the span rule for x-extractive fields and the per-schema cross-check. */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { crossChecks } from '../../src/crosschecks/index.js';
import { compileSchema, loadSchemaFile, runLadder } from '../../src/ladder/index.js';

// the shared folder sits beside the repository (in a developer's checkout and in CI alike)
const SHARED_LOG_SUMMARY = fileURLToPath(new URL('../../../shared/schemas/log_summary@2.json', import.meta.url));

const SOURCE = 'Mar  3 10:15:02 web-01 nginx[812]: upstream timed out after 30 s\nMar  3 10:15:09 web-01 systemd[1]: Started nginx.service';

const summary = compileSchema({
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  additionalProperties: false,
  required: ['host', 'first_error', 'lines'],
  properties: {
    host: { type: ['string', 'null'], 'x-extractive': true },
    first_error: { type: ['string', 'null'], 'x-extractive': true },
    lines: { type: 'array', items: { type: 'object', properties: { text: { type: 'string', 'x-extractive': true }, at: { type: 'number', 'x-extractive': true } } } },
  },
}, 'span-test@1');

afterEach(() => { delete crossChecks['span-test@1']; });

describe('level 4', () => {
  it('an extractive value with no span in the source is refused at level 4', () => {
    const r = runLadder({ text: '{"host": "web-02", "first_error": null, "lines": []}' }, summary, { source: SOURCE });
    expect(r).toMatchObject({ ok: false, kind: 'crosscheck', level: 4 });
    expect(r.ok ? '' : r.error).toContain('/host: "web-02" does not occur in the source');
  });

  it('null is never span-checked', () => {
    const r = runLadder({ text: '{"host": null, "first_error": null, "lines": []}' }, summary, { source: SOURCE });
    expect(r.ok).toBe(true);
  });

  it('extractive fields inside array items are checked, numbers against numeric tokens', () => {
    const good = runLadder({ value: { host: 'web-01', first_error: 'upstream timed out after 30 s', lines: [{ text: 'Started nginx.service', at: 30 }] } }, summary, { source: SOURCE });
    expect(good.ok).toBe(true);
    const bad = runLadder({ value: { host: 'web-01', first_error: null, lines: [{ text: 'Started nginx.service', at: 31 }] } }, summary, { source: SOURCE });
    expect(bad).toMatchObject({ ok: false, kind: 'crosscheck' });
    expect(bad.ok ? '' : bad.error).toContain('/lines/0/at: 31 does not occur');
  });

  it('without a source, level 4 does not run', () => {
    expect(runLadder({ text: '{"host": "invented", "first_error": null, "lines": []}' }, summary).ok).toBe(true);
  });

  it("the schema's cross-check runs after the span rule and its message is the error", () => {
    crossChecks['span-test@1'] = (value, source) => ((value as { lines: unknown[] }).lines.length === source.split('\n').length ? null : '/lines: expected one entry per line of the source');
    const r = runLadder({ text: '{"host": "web-01", "first_error": null, "lines": []}' }, summary, { source: SOURCE });
    expect(r).toMatchObject({ ok: false, kind: 'crosscheck', level: 4, error: '/lines: expected one entry per line of the source' });
  });

  it('fixes made before a level-4 refusal are kept', () => {
    const r = runLadder({ text: '```json\n{"Host": "web-9", "first_error": null, "lines": [],}\n```' }, summary, { source: SOURCE });
    expect(r.ok).toBe(false);
    expect(r.fixes).toContain('renamed Host -> host');
  });

  it.skipIf(!existsSync(SHARED_LOG_SUMMARY))('log_summary@2 (2020-12, x-extractive) takes a repaired model answer whose spans hold', () => {
    const schema = loadSchemaFile(SHARED_LOG_SUMMARY);
    const text = 'Summary:\n```json\n{"host": "web-01", "errorCount": "1", "first_error": "upstream timed out after 30 s", "first_error_at": "Mar  3 10:15:02", "service": "nginx", "max_severity": "Error", "service_restarted": "yes",}\n```';
    const r = runLadder({ text }, schema, { source: SOURCE });
    expect(r.ok, r.ok ? '' : r.error).toBe(true);
    expect(r.ok && r.value).toEqual({ host: 'web-01', error_count: 1, first_error: 'upstream timed out after 30 s', first_error_at: 'Mar  3 10:15:02', service: 'nginx', max_severity: 'error', service_restarted: true });
  });
});

/** Issue 4 §3: tool calls — the accepted shapes, name matching, argument repair. */
import { describe, expect, it } from 'vitest';
import { compileSchema, repairToolCall } from '../../src/ladder/index.js';

const tools = {
  search_web: compileSchema({ type: 'object', required: ['query'], additionalProperties: false, properties: { query: { type: 'string' }, max_results: { type: 'integer', default: 5 } } }),
  play_audio: compileSchema({ type: 'object', required: ['file_path'], additionalProperties: false, properties: { file_path: { type: 'string' }, volume: { type: 'number' } } }),
  read_file: compileSchema({ type: 'object', required: ['path'], properties: { path: { type: 'string' } } }),
  read_fila: compileSchema({ type: 'object', required: ['path'], properties: { path: { type: 'string' } } }),
};

describe('tool calls', () => {
  it('{"name", "args"} with args as a JSON string is accepted and the arguments repaired', () => {
    const r = repairToolCall('{"name": "search_web", "args": "{\\"query\\": \\"pi 5\\", \\"maxResults\\": \\"3\\"}"}', tools);
    expect(r).toMatchObject({ ok: true, name: 'search_web', arguments: { query: 'pi 5', max_results: 3 } });
    expect(r.fixes).toEqual(['read the call from name/args', 'parsed the arguments from a JSON string', 'renamed maxResults -> max_results', 'coerced max_results from string to integer']);
  });

  it('{"function": {"name", "arguments"}} (the OpenAI shape) inside a fence is accepted', () => {
    const r = repairToolCall('```json\n{"type": "function", "function": {"name": "play_audio", "arguments": {"file_path": "/a.wav", "volume": "0.5"}}}\n```', tools);
    expect(r).toMatchObject({ ok: true, name: 'play_audio', arguments: { file_path: '/a.wav', volume: 0.5 } });
  });

  it('{"tool", "parameters"} is accepted and defaults are filled', () => {
    expect(repairToolCall('{"tool": "search_web", "parameters": {"query": "x"}}', tools)).toMatchObject({ ok: true, arguments: { query: 'x', max_results: 5 } });
  });

  it('a misspelt tool name is matched when only one tool is that near, and the match is named', () => {
    const r = repairToolCall('{"tool": "serch_web", "arguments": {"query": "x"}}', tools);
    expect(r).toMatchObject({ ok: true, name: 'search_web' });
    expect(r.fixes).toContain('matched tool name serch_web -> search_web');
  });

  it('a misspelt name near two tools is refused as ambiguous', () => {
    const r = repairToolCall('{"tool": "read_filx", "arguments": {"path": "/etc/hosts"}}', tools);
    expect(r).toMatchObject({ ok: false, kind: 'schema' });
    expect(r.ok ? '' : r.error).toContain('unknown tool "read_filx"');
  });

  it('arguments that do not fit the tool are refused with a path under /arguments', () => {
    const r = repairToolCall('{"tool": "play_audio", "arguments": {"volume": 1}}', tools);
    expect(r).toMatchObject({ ok: false, kind: 'schema', error: '/arguments: missing required field "file_path"' });
  });

  it('text with no call in it is refused', () => {
    expect(repairToolCall('I would search the web for that.', tools)).toMatchObject({ ok: false, kind: 'grammar' });
    expect(repairToolCall('{"arguments": {"query": "x"}}', tools)).toMatchObject({ ok: false, kind: 'schema' });
  });
});

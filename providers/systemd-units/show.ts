/**
 * `systemctl show --property=...` of one unit → unit_status@1.
 *
 * systemctl show prints KEY=VALUE lines; an empty value means systemd has
 * none (no timestamp yet, no fragment file), so it is null here. A unit that
 * does not exist still gets an answer from systemd (LoadState=not-found), and
 * that answer is kept: `found` is false, not null. MainPID=0 means no main
 * process (null). `failed` is true when ActiveState is "failed" or Result is
 * anything but "success"; null when the capture states neither.
 */
import { int } from '../lib/single-schema.js';

export interface UnitStatus {
  unit: string | null;
  description: string | null;
  load_state: string | null;
  active_state: string | null;
  sub_state: string | null;
  unit_file_state: string | null;
  result: string | null;
  main_pid: number | null;
  exit_status: number | null;
  restarts: number | null;
  active_since: string | null;
  state_changed_at: string | null;
  fragment_path: string | null;
  found: boolean | null;
  failed: boolean | null;
}

/** KEY=VALUE lines; the first occurrence of a key wins, an empty value is absent. */
function properties(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z][A-Za-z0-9]*)=(.*)$/.exec(line);
    if (m && !out.has(m[1]!) && m[2]!.trim() !== '') out.set(m[1]!, m[2]!);
  }
  return out;
}

/** Parse one `systemctl show` capture. */
export function parseUnitShow(text: string): UnitStatus {
  const p = properties(text);
  const get = (k: string): string | null => p.get(k) ?? null;
  const pid = int(get('MainPID') ?? undefined);
  const load = get('LoadState');
  const active = get('ActiveState');
  const result = get('Result');
  return {
    unit: get('Id'),
    description: get('Description'),
    load_state: load,
    active_state: active,
    sub_state: get('SubState'),
    unit_file_state: get('UnitFileState'),
    result,
    main_pid: pid === null || pid === 0 ? null : pid,
    exit_status: int(get('ExecMainStatus') ?? undefined),
    restarts: int(get('NRestarts') ?? undefined),
    active_since: get('ActiveEnterTimestamp'),
    state_changed_at: get('StateChangeTimestamp'),
    fragment_path: get('FragmentPath'),
    found: load === null ? null : load !== 'not-found',
    failed: active === null && result === null ? null : active === 'failed' || (result !== null && result !== 'success'),
  };
}

/**
 * One readable line per ledger event, for `pico watch` and people at a terminal.
 *
 * Shows the sequence number, the time, the type and the few fields that
 * matter for that type; anything else is left to `--json` (the raw line).
 * It reads loosely — a ledger line this version does not know is printed by
 * type alone, never an error — and it never prints a whole fact or blob.
 */

const MAX = 100;

/** Shorten a value for one line. */
function short(v: unknown): string {
  const s = typeof v === 'string' ? v : JSON.stringify(v) ?? String(v);
  const flat = s.replace(/\s+/g, ' ');
  return flat.length > MAX ? `${flat.slice(0, MAX - 1)}…` : flat;
}

/** Describe one raw ledger line as `#seq hh:mm:ss type  details`. */
export function describeLine(line: string): string {
  let e: Record<string, unknown>;
  try {
    e = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return `(unreadable line) ${short(line)}`;
  }
  const t = typeof e.t === 'string' ? e.t.slice(11, 19) : '--:--:--';
  const head = `#${String(e.seq ?? '?').padStart(3)} ${t} ${String(e.type ?? '?').padEnd(18)}`;
  const f = (k: string): string => (e[k] === undefined || e[k] === null ? '' : `${k}=${short(e[k])}`);
  const parts: string[] = [];
  switch (e.type) {
    case 'composition': parts.push(f('hash')); break;
    case 'user_input': parts.push(f('budget_class'), short(e.text)); break;
    case 'plan_created': parts.push(`${Array.isArray(e.steps) ? e.steps.length : '?'} steps`); break;
    case 'step_started': parts.push(f('step'), f('tool'), f('capability'), f('schema')); break;
    case 'tool_output': parts.push(f('step'), f('tool'), f('bytes'), f('exit_code'), `${e.duration_ms ?? '?'} ms`); break;
    case 'provider_called': parts.push(f('step'), f('provider'), f('outcome'), `${e.duration_ms ?? '?'} ms`); break;
    case 'fact_added': parts.push(f('step'), f('provider'), f('schema'), f('trust'), f('confidence')); break;
    case 'resumed': parts.push(f('after_seq'), f('reason')); break;
    case 'declined': parts.push(f('reason')); break;
    case 'answer_sent': parts.push(f('outcome'), short(e.text)); break;
    default:
      if (typeof e.error === 'string') parts.push(f('step'), f('provider'), f('error'));
  }
  return `${head} ${parts.filter(Boolean).join(' ')}`.trimEnd();
}

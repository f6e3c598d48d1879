/**
 * One readable line per ledger event, for `pico watch` and people at a terminal.
 *
 * Shows the sequence number, the time, the type and the few fields that
 * matter for that type; anything else is left to `--json` (the raw line).
 * It reads loosely — a ledger line this version does not know is printed by
 * type alone, never an error — and it never prints a whole fact or blob: a
 * value longer than a line is cut, and the cut says how many characters are
 * left and where they are (`pico show SESSION --full`). The answer is the
 * exception: it is what the watch is for, so it follows its line whole.
 */

const MAX = 100;
/** How much of a failure's error a line shows (it can quote a whole model output). */
const ERROR_MAX = 300;

/** Shorten a value for one line, saying where the rest is. */
function short(v: unknown, rest: string, max = MAX): string {
  const s = typeof v === 'string' ? v : JSON.stringify(v) ?? String(v);
  const flat = s.replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max)}… (${flat.length - max} more characters: ${rest})` : flat;
}

/**
 * Describe one raw ledger line as `#seq hh:mm:ss type  details`. `rest` is the command that shows
 * a cut value whole; by default `pico show <the line's session> --full`.
 */
export function describeLine(line: string, rest?: string): string {
  let e: Record<string, unknown>;
  try {
    e = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return `(unreadable line) ${short(line, 'the ledger file itself')}`;
  }
  const more = rest ?? `pico show ${typeof e.session_id === 'string' ? e.session_id : 'SESSION'} --full`;
  const t = typeof e.t === 'string' ? e.t.slice(11, 19) : '--:--:--';
  const head = `#${String(e.seq ?? '?').padStart(3)} ${t} ${String(e.type ?? '?').padEnd(18)}`;
  const f = (k: string, max = MAX): string => (e[k] === undefined || e[k] === null ? '' : `${k}=${short(e[k], more, max)}`);
  const parts: string[] = [];
  switch (e.type) {
    case 'composition': parts.push(f('hash')); break;
    case 'user_input': parts.push(f('budget_class'), short(e.text, more)); break;
    case 'plan_created': parts.push(`${Array.isArray(e.steps) ? e.steps.length : '?'} steps`); break;
    case 'step_started': parts.push(f('step'), f('tool'), f('capability'), f('schema')); break;
    case 'tool_output': parts.push(f('step'), f('tool'), f('bytes'), f('exit_code'), `${e.duration_ms ?? '?'} ms`); break;
    case 'provider_called': parts.push(f('step'), f('provider'), f('outcome'), `${e.duration_ms ?? '?'} ms`); break;
    case 'fact_added': parts.push(f('step'), f('provider'), f('schema'), f('trust'), f('confidence')); break;
    case 'resumed': parts.push(f('after_seq'), f('reason')); break;
    case 'declined': parts.push(f('reason')); break;
    case 'coverage': parts.push(Array.isArray(e.parts) ? (e.parts as { status?: unknown }[]).map((p) => String(p.status)).join(', ') : ''); break;
    case 'answer_sent': return `${head} ${f('outcome')}\n${typeof e.text === 'string' ? e.text : short(e.text, more)}`;
    default:
      if (typeof e.error === 'string') parts.push(f('step'), f('provider'), f('error', ERROR_MAX));
  }
  return `${head} ${parts.filter(Boolean).join(' ')}`.trimEnd();
}

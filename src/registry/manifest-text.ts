/**
 * A manifest means one thing: no two files claim one id, and no provider
 * serves a control and a data capability at once (reading a file's bytes
 * safely and strictly is base/manifest-file.ts's).
 *
 * Why: two schema files with one `$id` left the later one in force silently;
 * and one provider could serve a control capability (plan, route: it decides
 * what runs) and a data capability (reading T1 text) at once, which is the
 * one path P7 closes. The loader (load.ts) turns each into an issue naming
 * both files and the fix.
 */
import type { TextIssue } from '../base/manifest-file.js';

/** An id two files declare: the issue for the second, naming the first. */
export function duplicateId(kind: string, id: string, first: string, second: string): TextIssue {
  return { file: second, path: '', message: `${kind} id "${id}" is declared twice: in ${first} and again in ${second}`, fix: 'ids must be unique; rename or remove one of the two files' };
}

/**
 * A provider serving a control capability and a data capability at once: one issue per such
 * provider. `control(cap)` says whether a capability is a control one (undefined: unknown, skipped).
 */
export function mixedServing(providers: readonly { id: string; implements: readonly string[] }[], control: (cap: string) => boolean | undefined, fileOf: (id: string) => string): TextIssue[] {
  const out: TextIssue[] = [];
  for (const p of providers) {
    const ctl = p.implements.filter((c) => control(c) === true);
    const data = p.implements.filter((c) => control(c) === false);
    if (ctl.length === 0 || data.length === 0) continue;
    out.push({
      file: fileOf(p.id), path: 'implements',
      message: `provider "${p.id}" serves the control capabilit${ctl.length > 1 ? 'ies' : 'y'} ${ctl.join(', ')} and the data capabilit${data.length > 1 ? 'ies' : 'y'} ${data.join(', ')}; a provider that reads data must never decide what runs`,
      fix: 'split it into two providers (two manifests), one for the control capabilities and one for the data capabilities',
    });
  }
  return out;
}

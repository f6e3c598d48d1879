/**
 * Sectioned captures: a tool whose script reads several sources prints a line
 * "== NAME" before each one, so its parser can tell them apart without
 * guessing from content. This module only splits; it reads no section.
 */

/** Split a capture into its "== NAME" sections (NAME is the rest of the marker line, trimmed). */
export function sections(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let current: string[] | null = null;
  for (const line of text.split('\n')) {
    const m = /^== (.+)$/.exec(line);
    if (m) {
      current = [];
      out.set(m[1]!.trim(), current);
    } else if (current) current.push(line);
  }
  return out;
}

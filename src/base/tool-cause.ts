/**
 * The shape of one tool cause (seam §7): why a tool read nothing, in words a
 * person reads, and the exit codes and output that mean it. A tool manifest
 * lists its causes (registry/manifest.ts); src/tools/causes.ts classifies a
 * run with them. The words are the manifest's (T2), never the tool's own
 * text. A cause matches when every test it names holds: `exit` lists the
 * exit codes (absent: any non-zero; name 0 for a tool that exits 0 yet read
 * nothing), and `stderr` / `stdout` are regular expressions over what the
 * tool printed there. Shape only.
 */
import { z } from './zod.js';

function compiles(source: string): boolean {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}

const pattern = (stream: string) => z.string().min(1).max(400).refine(compiles, { error: `${stream} must be a valid regular expression` });

export const toolCauseSchema = z.strictObject({
  id: z.string().regex(/^[a-z][a-z0-9_]{0,39}$/, 'lower-case letters, digits or "_", starting with a letter'),
  /** the words a person reads: "there is no journal on this machine" */
  plain: z.string().min(1).max(200),
  exit: z.array(z.number().int().min(0).max(255)).min(1).max(16).optional(),
  stderr: pattern('stderr').optional(),
  stdout: pattern('stdout').optional(),
  /** the source is there but held nothing (tool_empty), not a failure to read it (tool_failed) */
  empty: z.boolean().optional(),
}).refine((c) => c.exit !== undefined || c.stderr !== undefined || c.stdout !== undefined, { error: 'a cause names at least one test: exit, stderr or stdout' });
export type ToolCause = z.infer<typeof toolCauseSchema>;

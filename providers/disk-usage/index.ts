/**
 * The `disk-usage` code provider: `extract@1` → `disk_usage@1` from df output.
 * Pure: the text it is shown in, a value out; it never runs df itself (the
 * capture is a tool's job, so the ledger holds exactly what was parsed).
 */
import type { CodeProvider } from '../types.js';
import { parseDf } from './parse.js';

export { parseDf, stateOf, toBytes, WARNING_AT, CRITICAL_AT, type DiskUsage, type FilesystemUsage, type DiskState } from './parse.js';

/** Parse the df capture; only `disk_usage@1` is produced. */
export const diskUsageProvider: CodeProvider = ({ text, schemaId }) => {
  if (schemaId !== 'disk_usage@1') {
    throw new Error(`disk-usage provider: asked for schema "${schemaId}" but it only produces disk_usage@1; fix the manifest's "schemas" or the job step`);
  }
  return parseDf(text);
};

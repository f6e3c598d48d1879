/**
 * The `space` code provider: where a filesystem's space went, the second look
 * after df says a disk is full. `extract@1` → `folder_sizes@1` (du_top),
 * `journal_disk@1` (journal_disk) and `log_files@1` (log_files_top): three
 * readings of one question, so one provider owns them.
 */
import type { CodeProvider } from '../types.js';
import { parseDuTop } from './du.js';
import { parseJournalDisk } from './journal.js';
import { parseLogFiles } from './logs.js';

export { parseDuTop, complainedPath, type FolderSizes, type Folder } from './du.js';
export { parseJournalDisk, journalBytes, type JournalDisk } from './journal.js';
export { parseLogFiles, type LogFiles } from './logs.js';

const PARSERS: Record<string, (text: string) => unknown> = {
  'folder_sizes@1': parseDuTop,
  'journal_disk@1': parseJournalDisk,
  'log_files@1': parseLogFiles,
};

export const spaceProvider: CodeProvider = ({ text, schemaId }) => {
  const parse = PARSERS[schemaId];
  if (!parse) throw new Error(`space provider: asked for schema "${schemaId}" but it only produces ${Object.keys(PARSERS).join(', ')}; fix the manifest's "schemas" or the job step`);
  return parse(text);
};

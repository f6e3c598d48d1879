/**
 * The `processes` code provider: `extract@1` → `process_list@1` (the
 * processes of one name, process_find) and → `listening_sockets@1` (what
 * listens, listening_sockets): what still speaks of a service when its unit
 * cannot be read. Both leave nothing to guess: a program a socket's owner
 * cannot be seen for is counted, not named.
 */
import type { CodeProvider } from '../types.js';
import { parseProcessFind } from './find.js';
import { parseListeningSockets } from './sockets.js';

export { parseProcessFind, isNamed, type ProcessList, type FoundProcess } from './find.js';
export { parseListeningSockets, type ListeningSockets, type Socket } from './sockets.js';

export const processesProvider: CodeProvider = ({ text, schemaId }) => {
  if (schemaId === 'process_list@1') return parseProcessFind(text);
  if (schemaId === 'listening_sockets@1') return parseListeningSockets(text);
  throw new Error(`processes provider: asked for schema "${schemaId}" but it only produces process_list@1 and listening_sockets@1; fix the manifest's "schemas" or the job step`);
};

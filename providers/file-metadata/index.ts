/** The `file-metadata` code provider: `extract@1` → `file_metadata@1` from a stat capture. */
import { singleSchema } from '../lib/single-schema.js';
import { parseStat } from './parse.js';

export { parseStat, type FileMetadata } from './parse.js';
export const fileMetadataProvider = singleSchema('file-metadata', 'file_metadata@1', parseStat);

/**
 * Loading the lexicon of a root: every `manifests/lexicon/*.json` read from a
 * manifest source (the root's folders, or the last good snapshot of them),
 * checked, and merged in file-name order. A missing folder is an empty
 * lexicon; a bad file is an issue naming the file and the fix, collected
 * like a playbook's, so a set with a broken lexicon fails as a whole.
 */
import { readJson, type ManifestSource } from '../../registry/load.js';
import type { ManifestIssue } from '../../registry/boundary.js';
import { buildLexicon, LexiconError, parseLexicon, type Lexicon, type LexiconDoc } from './lexicon.js';

export interface LoadedLexicon {
  lexicon: Lexicon;
  /** the parsed documents by file name, for the composition */
  documents: Record<string, LexiconDoc>;
  issues: ManifestIssue[];
}

/** Read and merge the lexicon files of a manifest source; problems are collected, not thrown. */
export function loadLexicon(source: ManifestSource): LoadedLexicon {
  const issues: ManifestIssue[] = [];
  const documents: Record<string, LexiconDoc> = {};
  const names = source.list('lexicon', issues) ?? [];
  for (const name of names.filter((f) => f.endsWith('.json') && !f.startsWith('.')).sort()) {
    const file = `manifests/lexicon/${name}`;
    const json = readJson(source, file, issues);
    if (json === undefined) continue;
    try {
      documents[name] = parseLexicon(json, file);
    } catch (err) {
      if (!(err instanceof LexiconError)) throw err;
      issues.push({ file, path: '', message: err.message.slice(file.length + 1).trim(), fix: 'see docs/manifests.md, "Lexicon"' });
    }
  }
  return { lexicon: buildLexicon(documents), documents, issues };
}

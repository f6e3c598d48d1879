/**
 * The journal_disk capture → journal_disk@1: how much the system journal takes,
 * where, and the limit journald was given.
 *
 * Sections of the journal_disk script: "== usage" (`journalctl --disk-usage`,
 * then "== usage exit RC"), "== folders" (`du -s -k` of /var/log/journal and
 * /run/log/journal, where they exist) and "== settings" (the SystemMaxUse=,
 * RuntimeMaxUse= and Storage= lines of journald.conf and its drop-ins, the
 * last one winning as journald reads them). journalctl says its size in
 * powers of 1024 ("3.1G", "8.0M", "0B"); that figure is rounded, so the du
 * folders are listed beside it. Three states are told apart by journalctl's
 * own words: no journal files at all ("No journal files were found."), files
 * the caller may not open ("insufficient permissions", or the hint about the
 * systemd-journal group: only part of the journal is counted), and a journal.
 */
import { sections } from '../lib/sections.js';
import { complainedPath } from './du.js';

export interface JournalDisk {
  journal: 'present' | 'none' | 'unreadable' | 'not_installed' | null;
  bytes: number | null;
  said: string | null;
  partial_view: boolean | null;
  folders: { path: string; bytes: number }[];
  unreadable: string[];
  system_max_use: string | null;
  runtime_max_use: string | null;
  storage: string | null;
}

const USAGE = /take up (\d+(?:\.\d+)?)([BKMGTPE])\b/;
const POWERS = 'BKMGTPE';

/** journalctl's size ("3.1G") in bytes, rounded as journalctl rounded it. */
export function journalBytes(number: string, unit: string): number {
  return Math.round(Number(number) * 1024 ** POWERS.indexOf(unit));
}

/** Parse one journal_disk capture. */
export function parseJournalDisk(text: string): JournalDisk {
  const s = sections(text);
  const usage = s.get('usage') ?? [];
  const all = usage.join('\n');
  const m = USAGE.exec(all);
  const none = /No journal files were found/.test(all);
  const denied = /insufficient permissions|No journal files were opened/.test(all);
  const missing = /journalctl: not installed/.test(all);
  const hint = /not seeing messages from other users and the system/.test(all);
  const folders: JournalDisk['folders'] = [];
  const unreadable: string[] = [];
  for (const line of s.get('folders') ?? []) {
    const row = /^(\d+)\t(.+)$/.exec(line);
    if (row) folders.push({ path: row[2]!, bytes: Number(row[1]) * 1024 });
    const p = complainedPath(line);
    if (p) unreadable.push(p);
  }
  const setting = (key: string) => {
    let v: string | null = null;
    for (const line of s.get('settings') ?? []) {
      const kv = new RegExp(`^\\s*${key}=\\s*(\\S+)\\s*$`).exec(line);
      if (kv) v = kv[1]!;
    }
    return v;
  };
  const journal: JournalDisk['journal'] = missing ? 'not_installed' : none ? 'none' : denied ? 'unreadable' : m ? 'present' : null;
  const bytes = m && journal === 'present' ? journalBytes(m[1]!, m[2]!) : null;
  return {
    journal,
    bytes,
    said: m && journal === 'present' ? `${m[1]}${m[2]}` : null,
    partial_view: journal === 'present' ? hint : null,
    folders,
    unreadable,
    system_max_use: setting('SystemMaxUse'),
    runtime_max_use: setting('RuntimeMaxUse'),
    storage: setting('Storage'),
  };
}

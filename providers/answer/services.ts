/**
 * Sentences for services, packages and files: unit_status@1,
 * failed_units@1, upgradable_packages@1, file_metadata@1 and prune_result@1. Every string
 * here came from a capture (unit names, systemd's state words, package
 * names, paths, times), so each appears only quoted; numbers are printed
 * as numbers; a null is said to be unknown, never filled in.
 */
import { bool, count, humanBytes, int, list, obj, quote, quotedList, str } from './words.js';

type Fact = Record<string, unknown>;

/** unit_status@1: whether the unit exists, its state, and how its last run ended. */
export function unitSentence(f: Fact): string {
  const name = str(f.unit) !== null ? quote(f.unit) : 'The unit';
  if (bool(f.found) === false) return `${name} was not found (systemd has no such unit).`;
  const active = str(f.active_state);
  const sub = str(f.sub_state);
  let s = active === null ? `The state of ${str(f.unit) !== null ? name : 'the unit'} is unknown` : `${name} is ${quote(active)}${sub !== null ? ` (${quote(sub)})` : ''}`;
  if (str(f.active_since) !== null) s += ` since ${quote(f.active_since)}`;
  if (int(f.main_pid) !== null) s += `, main PID ${int(f.main_pid)}`;
  s += '.';
  const restarts = int(f.restarts);
  const result = str(f.result);
  const exit = int(f.exit_status);
  const last = [
    result !== null ? `the last run ended with ${quote(result)}` : null,
    exit !== null && exit !== 0 ? `exit status ${exit}` : null,
    restarts !== null && restarts > 0 ? `${count(restarts, 'automatic restart')}` : null,
  ].filter(Boolean);
  if (last.length) s += ` ${last.join(', ').replace(/^./, (c) => c.toUpperCase())}.`;
  if (bool(f.failed) === true) s += ' systemd counts it as failed.';
  return s;
}

/** failed_units@1: how many units failed, and which. */
export function failedSentence(f: Fact): string {
  const k = int(f.failed_count);
  if (k === null) return 'The list of failed units could not be read.';
  if (k === 0) return 'No systemd unit is in the failed state.';
  const names = list(f.units).map(obj).filter((u): u is Fact => u !== null && str(u.unit) !== null).map((u) => u.unit);
  return `${count(k, 'unit')} ${k === 1 ? 'is' : 'are'} in the failed state${names.length ? `: ${quotedList(names)}` : ''}.`;
}

/** upgradable_packages@1: how many packages can be upgraded, the security ones first. */
export function upgradableSentence(f: Fact): string {
  const k = int(f.count);
  if (k === null) return 'The list of upgradable packages could not be read.';
  if (k === 0) return 'No package upgrade is listed (the lists are as fresh as the last apt update).';
  const sec = int(f.security_count);
  const pkgs = list(f.packages).map(obj).filter((p): p is Fact => p !== null && str(p.name) !== null);
  const ordered = [...pkgs.filter((p) => p.security === true), ...pkgs.filter((p) => p.security !== true)];
  const secPart = sec === null ? ', how many from a security suite is unknown' : sec > 0 ? `, ${sec} from a security suite` : ', none from a security suite';
  return `${count(k, 'package')} can be upgraded${secPart}${ordered.length ? `: ${quotedList(ordered.map((p) => p.name))}` : ''}.`;
}

/** prune_result@1: what the prune removed (names and bytes) and what it kept, from the tool's own report. */
export function pruneSentence(f: Fact): string {
  const where = str(f.dir) !== null ? ` from ${quote(f.dir)}` : '';
  const removed = list(f.removed).map(obj).filter((x): x is Fact => x !== null && str(x.file) !== null);
  const kept = list(f.kept).map(obj).filter((x): x is Fact => x !== null && str(x.file) !== null);
  const bytes = int(f.removed_bytes);
  const went = removed.length === 0
    ? `Nothing was removed${where}`
    : `Removed ${count(removed.length, 'file')}${where}${bytes !== null ? ` (${humanBytes(bytes)})` : ''}: ${quotedList(removed.map((x) => x.file))}`;
  const seen = int(f.files_seen);
  const keep = int(f.keep);
  const stay = kept.length === 0 ? 'none was kept'
    : `kept ${keep !== null && seen !== null ? `the newest ${kept.length} of ${seen}` : count(kept.length, 'file')}: ${quotedList(kept.map((x) => x.file))}`;
  return `${went}; ${stay}.`;
}

/** file_metadata@1: what the path is, its size, owner and mode, and when it last changed. */
export function fileSentence(f: Fact): string {
  const path = str(f.path) !== null ? quote(f.path) : 'The file';
  const type = str(f.type);
  const size = int(f.size_bytes);
  if (str(f.path) === null && type === null && size === null) return 'The stat capture describes no file, so its details are unknown.';
  let s = `${path} is ${type !== null ? `a ${quote(type)}` : 'of unknown type'}, ${size !== null ? `${size} bytes${size >= 1024 ? ` (${humanBytes(size)})` : ''}` : 'size unknown'}.`;
  const who = (name: unknown, id: unknown, idWord: string) => (str(name) !== null ? quote(name) : int(id) !== null ? `${idWord} ${int(id)}` : 'unknown');
  const mode = str(f.mode);
  s += ` Owner ${who(f.owner, f.uid, 'uid')}, group ${who(f.group, f.gid, 'gid')}, mode ${mode !== null ? quote(mode) : 'unknown'}`;
  s += str(f.modified_at) !== null ? `; last modified ${quote(f.modified_at)}.` : '; when it was last modified is unknown.';
  return s;
}

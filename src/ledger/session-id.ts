/**
 * Session ids: sortable by creation time, safe as a folder name, unique
 * without coordination (time to the second plus 48 random bits).
 * A job submitted with `pico submit` keeps its id as its session id.
 */
import { randomBytes } from 'node:crypto';

export const SESSION_ID_RE = /^[0-9]{8}-[0-9]{6}-[0-9a-f]{12}$/;

/** A new session id such as 20261129-113512-3fa9c01b2d4e. */
export function newSessionId(now: Date = new Date()): string {
  const iso = now.toISOString(); // 2026-11-29T11:35:12.000Z
  const day = iso.slice(0, 10).replaceAll('-', '');
  const time = iso.slice(11, 19).replaceAll(':', '');
  return `${day}-${time}-${randomBytes(6).toString('hex')}`;
}

/** True when `id` has the shape of a session id (and so cannot escape a folder). */
export function isSessionId(id: string): boolean {
  return SESSION_ID_RE.test(id);
}

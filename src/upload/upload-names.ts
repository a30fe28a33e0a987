import { randomBytes } from 'node:crypto';

/**
 * A stored file's path relative to the upload root, as returned in `filename` and held by a product's
 * `image`: `YYYY/MM/<32 hex digits>.<ext>`. Nothing else is ever read from storage.
 */
const STORED_PATH = /^\d{4}\/(0[1-9]|1[0-2])\/[0-9a-f]{32}\.[a-z0-9]{2,5}$/;

export function isStoredPathFormat(path: string): boolean {
  return STORED_PATH.test(path);
}

/** A new random path under the upload month (UTC); the client's name plays no part. */
export function newStoredPath(ext: string, now = new Date()): string {
  const month = String(now.getUTCMonth() + 1).padStart(2, '0');
  return `${now.getUTCFullYear()}/${month}/${randomBytes(16).toString('hex')}.${ext}`;
}

export const ORIGINAL_NAME_MAX_LENGTH = 255;

// Control characters (NUL, CR, LF, DEL, C1), bidirectional overrides and isolates that can disguise an
// extension ("gnp.exe" shown as "exe.png"), and line or paragraph separators.
const UNSAFE_CHARS = /[\p{Cc}\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

/**
 * The client's file name made safe to display: the last path segment only, without control or
 * direction-changing characters, trimmed, at most 255 characters; "" when nothing is left.
 */
export function sanitiseOriginalName(name: string | undefined): string {
  const segments = (name ?? '').normalize('NFC').replace(UNSAFE_CHARS, '').split(/[/\\]/);
  const last = segments[segments.length - 1].trim();
  if (last === '.' || last === '..') return '';
  return Array.from(last).slice(0, ORIGINAL_NAME_MAX_LENGTH).join('').trim();
}

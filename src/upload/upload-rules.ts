/** The window of UPLOAD_QUOTA_BYTES: what a user uploaded in the last 24 hours. */
export const QUOTA_WINDOW_MS = 86_400_000;

/** How far an upload may go: the smaller of UPLOAD_MAX_BYTES and what is left of the quota, and which one that is. */
export interface UploadLimit {
  bytes: number;
  cutBy: 'maxBytes' | 'quota';
}

/** null when nothing is left of the quota: not even one byte may be uploaded. */
export function uploadLimit(maxBytes: number, quotaBytes: number, used: number): UploadLimit | null {
  const left = quotaBytes - used;
  if (left <= 0) return null;
  return left < maxBytes ? { bytes: left, cutBy: 'quota' } : { bytes: maxBytes, cutBy: 'maxBytes' };
}

/** Uploads created at or before this instant are old enough to be removed when no product uses them. */
export function orphanCutoff(now: Date, orphanTtlSeconds: number): Date {
  return new Date(now.getTime() - orphanTtlSeconds * 1000);
}

import { describe, expect, it } from '@jest/globals';
import { orphanCutoff, uploadLimit } from './upload-rules.js';

describe('uploadLimit', () => {
  it('is UPLOAD_MAX_BYTES while at least that much of the quota is left', () => {
    expect(uploadLimit(100, 1000, 0)).toEqual({ bytes: 100, cutBy: 'maxBytes' });
    expect(uploadLimit(100, 1000, 900)).toEqual({ bytes: 100, cutBy: 'maxBytes' });
  });

  it('is what is left of the quota, to the byte, once that is less', () => {
    expect(uploadLimit(100, 1000, 901)).toEqual({ bytes: 99, cutBy: 'quota' });
    expect(uploadLimit(100, 1000, 999)).toEqual({ bytes: 1, cutBy: 'quota' });
  });

  it('is null when nothing is left, or less than nothing (a lowered quota)', () => {
    expect(uploadLimit(100, 1000, 1000)).toBeNull();
    expect(uploadLimit(100, 1000, 5000)).toBeNull();
  });
});

describe('orphanCutoff', () => {
  it('is UPLOAD_ORPHAN_TTL seconds before now', () => {
    const now = new Date('2026-11-23T12:00:00.000Z');
    expect(orphanCutoff(now, 86400)).toEqual(new Date('2026-11-22T12:00:00.000Z'));
    expect(orphanCutoff(now, 1)).toEqual(new Date('2026-11-23T11:59:59.000Z'));
  });
});

import { describe, expect, it } from '@jest/globals';
import { isStoredPathFormat, newStoredPath, sanitiseOriginalName } from './upload-names.js';

describe('newStoredPath', () => {
  it('puts a random name with the given extension under the UTC year and month', () => {
    const at = new Date('2026-01-31T23:30:00-05:00'); // 2026-02-01 in UTC
    const first = newStoredPath('png', at);
    expect(first).toMatch(/^2026\/02\/[0-9a-f]{32}\.png$/);
    expect(newStoredPath('png', at)).not.toBe(first);
    expect(isStoredPathFormat(first)).toBe(true);
  });
});

describe('isStoredPathFormat', () => {
  it.each([
    '../../etc/passwd',
    '2026/11/../../x.png',
    '/2026/11/0123456789abcdef0123456789abcdef.png',
    '2026/13/0123456789abcdef0123456789abcdef.png',
    '2026/11/0123456789ABCDEF0123456789ABCDEF.png',
    '2026/11/0123456789abcdef0123456789abcdef',
    '2026/11/.incoming.png',
    '.incoming/0123456789abcdef0123456789abcdef.part',
    '2026/11/0123456789abcdef0123456789abcdef.png\0.html',
    '',
  ])('refuses %j', (path) => {
    expect(isStoredPathFormat(path)).toBe(false);
  });
});

describe('sanitiseOriginalName', () => {
  it.each([
    ['photo.png', 'photo.png'],
    ['../../x.png', 'x.png'],
    ['..\\..\\windows\\x.png', 'x.png'],
    ['C:\\Users\\me\\Pictures\\cat.jpg', 'cat.jpg'],
    ['evil\0name.png', 'evilname.png'],
    ['line\r\nbreak.png', 'linebreak.png'],
    ['invoice\u202egnp.exe', 'invoicegnp.exe'],
    ['  spaced  .pdf  ', 'spaced  .pdf'],
    ['café ☕.png', 'café ☕.png'],
    ['cafe\u0301.png', 'café.png'],
    ['..', ''],
    ['dir/', ''],
    [undefined, ''],
  ])('shows %j as %j', (input, expected) => {
    expect(sanitiseOriginalName(input)).toBe(expected);
  });

  it('keeps at most 255 characters without splitting a character', () => {
    expect(sanitiseOriginalName('a'.repeat(300))).toBe('a'.repeat(255));
    const emoji = sanitiseOriginalName('😀'.repeat(300));
    expect(Array.from(emoji)).toHaveLength(255);
    expect(emoji).toBe('😀'.repeat(255));
  });
});

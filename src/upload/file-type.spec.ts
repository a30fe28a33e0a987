import { describe, expect, it } from '@jest/globals';
import { DETECTABLE_TYPES, detectFileType, mimeOfExtension, SNIFF_BYTES } from './file-type.js';

const bytes = (...parts: Array<number[] | string>) =>
  Buffer.concat(
    parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'latin1') : Buffer.from(part))),
  );

describe('detectFileType', () => {
  it.each([
    ['image/jpeg', 'jpg', bytes([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10], 'JFIF\0')],
    ['image/png', 'png', bytes([0x89], 'PNG\r\n\x1a\n', [0, 0, 0, 13], 'IHDR')],
    ['image/gif', 'gif', bytes('GIF89a', [1, 0, 1, 0])],
    ['image/gif', 'gif', bytes('GIF87a', [1, 0, 1, 0])],
    ['image/webp', 'webp', bytes('RIFF', [0x24, 0, 0, 0], 'WEBPVP8L')],
    ['image/webp', 'webp', bytes('RIFF', [0x24, 0, 0, 0], 'WEBPVP8 ')],
    ['application/pdf', 'pdf', bytes('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n')],
  ])('recognises %s from its signature', (mime, ext, head) => {
    expect(detectFileType(head)).toEqual({ mime, ext });
  });

  it.each([
    ['plain text', bytes('hello, world\n')],
    ['SVG', bytes('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')],
    ['SVG with an XML declaration', bytes('<?xml version="1.0"?><svg/>')],
    ['HTML', bytes('<!DOCTYPE html><html><body>x</body></html>')],
    ['a RIFF file that is not WebP (WAV)', bytes('RIFF', [0x24, 0, 0, 0], 'WAVEfmt ')],
    ['a truncated PNG signature', bytes([0x89], 'PNG\r\n')],
    ['a PDF signature not at the start', bytes(' %PDF-1.7\n')],
    ['"%PDF" without the dash', bytes('%PDF1.7\n')],
    ['an empty buffer', Buffer.alloc(0)],
  ])('refuses %s', (_label, head) => {
    expect(detectFileType(head)).toBeNull();
  });

  it('decides from at most SNIFF_BYTES bytes', () => {
    const webp = bytes('RIFF', [0x24, 0, 0, 0], 'WEBPVP8X');
    expect(webp.length).toBeLessThanOrEqual(SNIFF_BYTES);
    expect(detectFileType(webp)).toEqual({ mime: 'image/webp', ext: 'webp' });
  });

  it('maps stored extensions back to their types and nothing else', () => {
    expect(DETECTABLE_TYPES).toEqual([
      'image/jpeg',
      'image/png',
      'image/gif',
      'image/webp',
      'application/pdf',
    ]);
    expect(mimeOfExtension('jpg')).toBe('image/jpeg');
    expect(mimeOfExtension('pdf')).toBe('application/pdf');
    expect(mimeOfExtension('svg')).toBeNull();
    expect(mimeOfExtension('html')).toBeNull();
  });
});

/** A media type recognised from a file's first bytes, with the extension its stored name gets. */
export interface FileType {
  mime: string;
  ext: string;
}

interface Signature extends FileType {
  matches(head: Buffer): boolean;
}

const startsWith = (head: Buffer, bytes: number[] | string, offset = 0): boolean => {
  const expected = typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : Buffer.from(bytes);
  return (
    head.length >= offset + expected.length &&
    head.subarray(offset, offset + expected.length).equals(expected)
  );
};

/**
 * Only formats with an unambiguous binary signature. Text formats (SVG, HTML, plain text) have none
 * and can carry script, so they can never be detected and therefore never accepted.
 */
const SIGNATURES: Signature[] = [
  { mime: 'image/jpeg', ext: 'jpg', matches: (head) => startsWith(head, [0xff, 0xd8, 0xff]) },
  {
    mime: 'image/png',
    ext: 'png',
    matches: (head) => startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  },
  {
    mime: 'image/gif',
    ext: 'gif',
    matches: (head) => startsWith(head, 'GIF87a') || startsWith(head, 'GIF89a'),
  },
  {
    // RIFF container, WEBP form type, then a VP8 / VP8L / VP8X chunk
    mime: 'image/webp',
    ext: 'webp',
    matches: (head) => startsWith(head, 'RIFF') && startsWith(head, 'WEBP', 8) && startsWith(head, 'VP8', 12),
  },
  { mime: 'application/pdf', ext: 'pdf', matches: (head) => startsWith(head, '%PDF-') },
];

/** How many leading bytes `detectFileType` needs to decide. */
export const SNIFF_BYTES = 16;

/** Every media type that can be detected, hence the only values UPLOAD_ALLOWED_TYPES may list. */
export const DETECTABLE_TYPES: readonly string[] = SIGNATURES.map((signature) => signature.mime);

/** The type whose signature the bytes start with, or null; a declared type plays no part. */
export function detectFileType(head: Buffer): FileType | null {
  const signature = SIGNATURES.find((candidate) => candidate.matches(head));
  return signature ? { mime: signature.mime, ext: signature.ext } : null;
}

/** The media type served for a stored file's extension, or null for an extension never stored. */
export function mimeOfExtension(ext: string): string | null {
  return SIGNATURES.find((signature) => signature.ext === ext)?.mime ?? null;
}

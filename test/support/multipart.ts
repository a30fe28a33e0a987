import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

export const BOUNDARY = '----CommerceTestBoundary7MA4YWxkTrZu0gW';
export const MULTIPART_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

export interface FormPart {
  /** The `name` parameter; null leaves it out. */
  name: string | null;
  /** The quoted `filename` parameter, written as UTF-8 bytes. */
  filename?: string;
  /** A ready-encoded RFC 5987 `filename*` value, e.g. `UTF-8''a%00b.png`. */
  filenameStar?: string;
  contentType?: string;
  content: Buffer | string;
  /** Replaces the generated headers of the part. */
  rawHeaders?: string;
}

function partHeaders(part: FormPart): string {
  if (part.rawHeaders !== undefined) return part.rawHeaders;
  let disposition = 'Content-Disposition: form-data';
  if (part.name !== null) disposition += `; name="${part.name}"`;
  if (part.filename !== undefined) disposition += `; filename="${part.filename}"`;
  if (part.filenameStar !== undefined) disposition += `; filename*=${part.filenameStar}`;
  const type = part.contentType === undefined ? '' : `\r\nContent-Type: ${part.contentType}`;
  return `${disposition}${type}`;
}

/** The opening of a part: boundary and headers, ready for the content. */
export function partHead(part: Omit<FormPart, 'content'>): Buffer {
  return Buffer.from(`--${BOUNDARY}\r\n${partHeaders({ ...part, content: '' })}\r\n\r\n`, 'utf8');
}

/** A multipart/form-data body built byte by byte, so that tests control every header and boundary. */
export function multipartBody(parts: FormPart[], options: { close?: boolean } = {}): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    chunks.push(partHead(part), Buffer.from(part.content), Buffer.from('\r\n'));
  }
  if (options.close !== false) chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

const SIGNATURES: Record<string, Buffer> = {
  'image/jpeg': Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.from('JFIF\0')]),
  'image/png': Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'),
  'image/gif': Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1'),
  'image/webp': Buffer.from('RIFF\x24\x00\x00\x00WEBPVP8L', 'latin1'),
  'application/pdf': Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1'),
};

/** `size` bytes that start with the format's signature and continue with random bytes (every byte value). */
export function sampleFile(type: string, size = 2048): Buffer {
  const signature = SIGNATURES[type];
  if (signature === undefined) throw new Error(`no sample for ${type}`);
  return Buffer.concat([signature, randomBytes(Math.max(0, size - signature.length))]);
}

/** Every file under `dir`, as sorted relative paths (the `.incoming` folder included). */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .sort();
}

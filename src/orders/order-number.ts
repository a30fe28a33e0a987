import { randomBytes } from 'node:crypto';

// Crockford's base 32: no I, L, O, U, so numbers read aloud or typed are unambiguous.
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** `ORD-YYYYMMDD-XXXXXXXX`: the UTC date and 40 random bits, readable and not guessable. */
export function newOrderNumber(now = new Date()): string {
  const date = now.toISOString().slice(0, 10).replaceAll('-', '');
  const bytes = randomBytes(8);
  let suffix = '';
  for (let i = 0; i < 8; i++) suffix += ALPHABET[bytes[i] & 31];
  return `ORD-${date}-${suffix}`;
}

import { fieldError } from './validation.js';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,128}$/;

/** The optional `Idempotency-Key` header: 1-128 visible ASCII characters, or a 400 naming it. */
export function checkIdempotencyKey(key: string | undefined): void {
  if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) {
    throw fieldError('Idempotency-Key', 'matches', 'Idempotency-Key must be 1-128 visible ASCII characters');
  }
}

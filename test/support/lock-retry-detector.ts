import { afterEach, beforeEach } from '@jest/globals';
import { LockRetry, observeLockRetries } from '../../src/database/transaction-runner.js';

// Loaded before every e2e file (jest.config.cjs setupFilesAfterEnv): a test during which a transaction of
// an in-process app was retried after a lock conflict fails, unless it called expectLockRetries(). Retries
// under test load are almost always a write-order mistake (docs/extending.md#lock-retries).

let retries: LockRetry[] = [];
let expected = false;
observeLockRetries((retry) => retries.push(retry));

beforeEach(() => {
  retries = [];
  expected = false;
});

afterEach(() => {
  if (!expected && retries.length > 0) throw new Error(unexpectedRetriesMessage(retries));
});

/** What a test that caused retries fails with. */
export function unexpectedRetriesMessage(seen: readonly LockRetry[]): string {
  const list = seen.map((r) => `'${r.purpose}' attempt ${r.attempt} (${r.code})`).join(', ');
  return (
    `Unexpected lock retry: ${seen.length} transaction(s) retried after a lock conflict: ${list}. ` +
    'Write parent rows before child rows, or call expectLockRetries() if the test provokes conflicts.'
  );
}

/** Declares that the current test provokes lock conflicts, so retries do not fail it. */
export function expectLockRetries(): void {
  expected = true;
}

/** The retries seen so far in the current test. */
export function lockRetriesSeen(): readonly LockRetry[] {
  return retries;
}

import { describe, expect, it } from '@jest/globals';
import { PasswordHasher } from './password-hasher.js';

describe('PasswordHasher', () => {
  const hasher = new PasswordHasher();

  it('hashes with argon2id at 19 MiB, t=2, p=1 and a random salt', async () => {
    const a = await hasher.hash('correct horse');
    const b = await hasher.hash('correct horse');
    expect(a).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
    expect(a).not.toBe(b);
  });

  it('verifies the right password only', async () => {
    const hash = await hasher.hash('correct horse');
    await expect(hasher.verify(hash, 'correct horse')).resolves.toBe(true);
    await expect(hasher.verify(hash, 'wrong horse')).resolves.toBe(false);
  });

  it('never accepts a missing hash, even for the decoy password', async () => {
    await expect(hasher.verify(null, 'decoy password for unknown users')).resolves.toBe(false);
  });
});

import { Injectable } from '@nestjs/common';
import argon2 from 'argon2';

/** argon2id at OWASP's recommended minimum: 19 MiB, 2 iterations, 1 lane. */
const ARGON2_OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

@Injectable()
export class PasswordHasher {
  /** Verified against when the user does not exist, so that both failures take the same time. */
  private readonly decoy = argon2.hash('decoy password for unknown users', ARGON2_OPTIONS);

  hash(password: string): Promise<string> {
    return argon2.hash(password, ARGON2_OPTIONS);
  }

  async verify(hash: string | null, password: string): Promise<boolean> {
    const ok = await argon2.verify(hash ?? (await this.decoy), password);
    return ok && hash !== null;
  }
}

import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import type { TokenClaims } from './auth-user.js';

/** Tokens remembered at most; the oldest go first. */
const MAX_TOKENS = 10_000;

type ExpiringClaims = TokenClaims & { exp: number };

/**
 * Verifies access tokens (HS256 with the service's key, then the expiry), remembering the claims of each token that
 * verified until it expires. A client sends the same token with every request for its lifetime, and each request
 * needs it verified twice (the rate limiter's bucket, then the authentication guard): an HMAC and two base64 and
 * JSON decodings each time, against one lookup of the exact same string here. A token that fails is never
 * remembered; one remembered is refused from the second it expires, as jsonwebtoken refuses it.
 */
@Injectable()
export class VerifiedTokens {
  private readonly known = new Map<string, ExpiringClaims>();

  constructor(private readonly jwt: JwtService) {}

  /** The token's claims (shared: read them, never change them); throws jsonwebtoken's error when it fails. */
  verify(token: string): TokenClaims {
    const known = this.known.get(token);
    if (known !== undefined) {
      if (Math.floor(Date.now() / 1000) < known.exp) return known;
      this.known.delete(token);
    }
    const claims = this.jwt.verify<TokenClaims>(token);
    if (typeof claims.exp === 'number') {
      if (this.known.size >= MAX_TOKENS) this.known.delete(this.known.keys().next().value as string);
      this.known.set(token, Object.freeze(claims) as ExpiringClaims);
    }
    return claims;
  }
}

import type { Role } from '../users/user-accounts.js';
import type { AuthUser } from './auth-user.js';

/** A caller authenticated by a raw token, with the moment that token expires (ms since the epoch). */
export interface Authenticated {
  user: AuthUser;
  expiresAt: number;
}

/** The account an access token names, as its verified claims say (no database read). */
export interface TokenCaller {
  id: number;
  role: Role;
}

/** `Bearer <JWT>` and nothing else: passport-jwt's own extractor ignores anything after the token. */
const BEARER = /^Bearer +([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*)$/i;

/** The JWT of an `Authorization: Bearer <JWT>` header; null for anything else. */
export const bearerToken = (authorization: string | undefined): string | null =>
  BEARER.exec(authorization ?? '')?.[1] ?? null;

/** What other modules may ask of the auth module (bound to AuthService in AuthModule). */
export abstract class TokenAuthenticator {
  /** Verifies a raw access token (signature, HS256, expiry, claims) and loads its caller; 401 otherwise. */
  abstract authenticate(token: string): Promise<Authenticated>;

  /**
   * The account of an `Authorization` header's bearer token when its signature, algorithm, expiry and claims
   * verify, without the database (a few microseconds); null otherwise. A token whose session has ended since
   * still names its account until it expires: enough to choose a rate-limit bucket, never to authorize.
   */
  abstract verifiedCaller(authorization: string | undefined): TokenCaller | null;
}

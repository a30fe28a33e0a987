import type { AuthUser } from './auth-user.js';

/** A caller authenticated by a raw token, with the moment that token expires (ms since the epoch). */
export interface Authenticated {
  user: AuthUser;
  expiresAt: number;
}

/** What other modules may ask of the auth module (bound to AuthService in AuthModule). */
export abstract class TokenAuthenticator {
  /** Verifies a raw access token (signature, HS256, expiry, claims) and loads its caller; 401 otherwise. */
  abstract authenticate(token: string): Promise<Authenticated>;
}

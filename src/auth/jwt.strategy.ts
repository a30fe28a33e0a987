import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { KeyObject } from 'node:crypto';
import type { Request } from 'express';
import { Strategy } from 'passport-jwt';
import type { AuthUser, TokenClaims } from './auth-user.js';
import { AuthService } from './auth.service.js';
import { bearerToken } from './token-authenticator.js';
import { VerifiedTokens } from './verified-tokens.js';

export const JWT_KEY = Symbol('JWT_KEY');

type JwtVerifier = (
  token: string,
  key: unknown,
  options: unknown,
  done: (error: Error | null, claims?: TokenClaims) => void,
) => void;

@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy) {
  constructor(
    @Inject(JWT_KEY) key: KeyObject,
    private readonly auth: AuthService,
    tokens: VerifiedTokens,
  ) {
    super({
      jwtFromRequest: (request: Request) => bearerToken(request.headers.authorization),
      // A KeyObject: jsonwebtoken would otherwise import the string secret on every verify.
      secretOrKey: key as unknown as Buffer,
      algorithms: ['HS256'],
      ignoreExpiration: false,
    });
    // passport-jwt verifies every token through this static hook, with the key and options above, which are
    // VerifiedTokens' own (JwtModule's): the token the rate limiter has verified is not verified twice.
    (Strategy as unknown as { JwtVerifier: JwtVerifier }).JwtVerifier = (token, _key, _options, done) => {
      let claims: TokenClaims;
      try {
        claims = tokens.verify(token);
      } catch (error) {
        return done(error as Error);
      }
      done(null, claims);
    };
  }

  validate(claims: TokenClaims): Promise<AuthUser> {
    return this.auth.userFromClaims(claims);
  }
}

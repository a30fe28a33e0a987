import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { KeyObject } from 'node:crypto';
import type { Request } from 'express';
import { Strategy } from 'passport-jwt';
import type { AuthUser, TokenClaims } from './auth-user.js';
import { AuthService } from './auth.service.js';

export const JWT_KEY = Symbol('JWT_KEY');

/** `Bearer <JWT>` and nothing else: passport-jwt's own extractor ignores anything after the token. */
const BEARER = /^Bearer +([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*)$/i;

const bearerToken = (request: Request): string | null =>
  BEARER.exec(request.headers.authorization ?? '')?.[1] ?? null;

@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy) {
  constructor(
    @Inject(JWT_KEY) key: KeyObject,
    private readonly auth: AuthService,
  ) {
    super({
      jwtFromRequest: bearerToken,
      // A KeyObject: jsonwebtoken would otherwise import the string secret on every verify.
      secretOrKey: key as unknown as Buffer,
      algorithms: ['HS256'],
      ignoreExpiration: false,
    });
  }

  validate(claims: TokenClaims): Promise<AuthUser> {
    return this.auth.userFromClaims(claims);
  }
}

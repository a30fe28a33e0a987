import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { KeyObject } from 'node:crypto';
import type { Request } from 'express';
import { Strategy } from 'passport-jwt';
import type { AuthUser, TokenClaims } from './auth-user.js';
import { AuthService } from './auth.service.js';
import { bearerToken } from './token-authenticator.js';

export const JWT_KEY = Symbol('JWT_KEY');

@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy) {
  constructor(
    @Inject(JWT_KEY) key: KeyObject,
    private readonly auth: AuthService,
  ) {
    super({
      jwtFromRequest: (request: Request) => bearerToken(request.headers.authorization),
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

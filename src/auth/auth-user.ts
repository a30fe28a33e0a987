import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Request } from 'express';
import type { Role } from '../users/user-accounts.js';

/** The authenticated caller, as loaded for each request from the token's subject and session. */
export interface AuthUser {
  id: number;
  username: string;
  role: Role;
  /** The session the access token was issued for (its `sid`). */
  sessionId: string;
}

/** JWT claims: `sub` is the user id as a string (RFC 7519), `sid` the session id. */
export interface TokenClaims {
  sub: string;
  sid: string;
  username: string;
  role: Role;
  iat?: number;
  exp?: number;
}

export const ROLES_KEY = 'roles';

/** Restricts a route to the given roles (checked after authentication). */
export const Roles = (...roles: Role[]) => SetMetadata(ROLES_KEY, roles);

/** Injects the authenticated caller into a handler parameter. */
export const CurrentUser = createParamDecorator(
  (_data: unknown, context: ExecutionContext): AuthUser =>
    context.switchToHttp().getRequest<Request>().user as AuthUser,
);

/** Injects the caller's user agent and address (as Express sees it with TRUST_PROXY), recorded with a session. */
export const RequestClient = createParamDecorator(
  (_data: unknown, context: ExecutionContext): { userAgent: string; ip: string } => {
    const request = context.switchToHttp().getRequest<Request>();
    return { userAgent: request.headers['user-agent'] ?? '', ip: request.ip ?? '' };
  },
);

import {
  createParamDecorator,
  ExecutionContext,
  ForbiddenException,
  NotFoundException,
  SetMetadata,
} from '@nestjs/common';
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

/**
 * The owner-or-admin rule, stated once (docs/api.md, "Owner or admin"): the resource's owner and admins pass.
 * Anyone else gets 404, the answer for a missing resource, where whether it exists is the owner's business
 * (`hide: true`: orders); 403 where its existence is not secret (`hide: false`: user records, uploads).
 */
export function assertOwnerOrAdmin(
  actor: Pick<AuthUser, 'id' | 'role'>,
  ownerId: number,
  refusal: { hide: true; notFound: string } | { hide: false; forbidden: string },
): void {
  if (actor.role === 'admin' || actor.id === ownerId) return;
  throw refusal.hide ? new NotFoundException(refusal.notFound) : new ForbiddenException(refusal.forbidden);
}

/**
 * The same rule for a query that loads the resource (`hide: true`): the condition limiting a caller who is not
 * an admin to their own rows, so someone else's resource is not found.
 */
export function ownedBy(actor: Pick<AuthUser, 'id' | 'role'>): { userId?: number } {
  return actor.role === 'admin' ? {} : { userId: actor.id };
}

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

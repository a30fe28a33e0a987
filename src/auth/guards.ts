import {
  CanActivate,
  ExecutionContext,
  ForbiddenException,
  Inject,
  Injectable,
  UnauthorizedException,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { Request } from 'express';
import { CATALOG_READ, IS_PUBLIC, OPTIONAL_AUTH } from '../common/public.decorator.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { AuthUser, ROLES_KEY } from './auth-user.js';
import type { Role } from '../users/user-accounts.js';

/**
 * Global guard: every route needs a valid bearer token unless marked @Public(), or @OptionalAuth() (or
 * @CatalogRead() with CATALOG_PUBLIC=true) and no Authorization header (a request that sends one is
 * authenticated as usual).
 */
@Injectable()
export class JwtAuthGuard extends AuthGuard('jwt') {
  constructor(
    private readonly reflector: Reflector,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  override canActivate(context: ExecutionContext) {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    const anonymous = context.switchToHttp().getRequest<Request>().headers.authorization === undefined;
    if (anonymous && this.reflector.getAllAndOverride<boolean>(OPTIONAL_AUTH, targets)) return true;
    if (
      this.config.catalogPublic &&
      this.reflector.getAllAndOverride<boolean>(CATALOG_READ, targets) &&
      anonymous
    ) {
      return true;
    }
    return super.canActivate(context);
  }

  override handleRequest<T = AuthUser>(
    error: unknown,
    user: T | false,
    info: unknown,
    context: ExecutionContext,
  ): T {
    if (error) throw error instanceof Error ? error : new UnauthorizedException();
    if (user) return user;
    const header = context.switchToHttp().getRequest<Request>().headers.authorization;
    if (header === undefined) throw new UnauthorizedException('Missing bearer token');
    if (info instanceof Error && info.name === 'TokenExpiredError')
      throw new UnauthorizedException('Token has expired');
    throw new UnauthorizedException('Invalid bearer token');
  }
}

/** Global guard: enforces @Roles() after authentication. */
@Injectable()
export class RolesGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const roles = this.reflector.getAllAndOverride<Role[] | undefined>(ROLES_KEY, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (roles === undefined) return true;
    const user = context.switchToHttp().getRequest<Request>().user as AuthUser | undefined;
    if (user !== undefined && roles.includes(user.role)) return true;
    throw new ForbiddenException('Insufficient permission');
  }
}

import { CanActivate, ExecutionContext, HttpException, HttpStatus, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { AuthUser } from './auth-user.js';
import { LoginFailures } from './login-failures.js';

/**
 * Refuses with 429 and `Retry-After` a password check for an account locked by too many failures: the
 * username of POST /login (the raw body: guards run before the pipe, so LoginFailures folds it the way login
 * resolves it), or the caller's own for a password change. The answer is the same for unknown usernames,
 * which are counted alike.
 */
@Injectable()
export class LoginLockGuard implements CanActivate {
  constructor(private readonly failures: LoginFailures) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    const body = request.body as { username?: unknown } | undefined;
    const username = (request.user as AuthUser | undefined)?.username ?? body?.username;
    if (typeof username !== 'string') return true; // validation answers
    const retryAfter = await this.failures.lockedFor(username);
    if (retryAfter === 0) return true;
    context.switchToHttp().getResponse<Response>().setHeader('Retry-After', String(retryAfter));
    throw new HttpException(
      `Too many failed logins for this account: retry in ${retryAfter} s`,
      HttpStatus.TOO_MANY_REQUESTS,
    );
  }
}

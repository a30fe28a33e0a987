import { describe, expect, it } from '@jest/globals';
import { ExecutionContext, ForbiddenException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { RolesGuard } from './guards.js';

function contextFor(
  roles: string[] | undefined,
  user: object | undefined,
): { guard: RolesGuard; context: ExecutionContext } {
  const reflector = { getAllAndOverride: () => roles } as unknown as Reflector;
  const context = {
    getHandler: () => undefined,
    getClass: () => undefined,
    switchToHttp: () => ({ getRequest: () => ({ user }) }),
  } as unknown as ExecutionContext;
  return { guard: new RolesGuard(reflector), context };
}

describe('RolesGuard', () => {
  it('lets any authenticated caller through a route without @Roles', () => {
    const { guard, context } = contextFor(undefined, { id: 1, role: 'user' });
    expect(guard.canActivate(context)).toBe(true);
  });

  it('lets an admin through an admin route and refuses a user with 403', () => {
    const admin = contextFor(['admin'], { id: 1, role: 'admin' });
    expect(admin.guard.canActivate(admin.context)).toBe(true);
    const user = contextFor(['admin'], { id: 2, role: 'user' });
    expect(() => user.guard.canActivate(user.context)).toThrow(ForbiddenException);
  });
});

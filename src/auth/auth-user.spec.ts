import { describe, expect, it } from '@jest/globals';
import { ForbiddenException, NotFoundException } from '@nestjs/common';
import { assertOwnerOrAdmin, ownedBy } from './auth-user.js';

describe('owner-or-admin rule', () => {
  const owner = { id: 7, role: 'user' as const };
  const admin = { id: 1, role: 'admin' as const };
  const stranger = { id: 8, role: 'user' as const };

  it('lets the owner and any admin pass', () => {
    for (const actor of [owner, admin]) {
      expect(() => assertOwnerOrAdmin(actor, 7, { hide: false, forbidden: 'no' })).not.toThrow();
      expect(() => assertOwnerOrAdmin(actor, 7, { hide: true, notFound: 'gone' })).not.toThrow();
    }
  });

  it('refuses anyone else with 403 when existence is public, 404 when it is hidden', () => {
    expect(() => assertOwnerOrAdmin(stranger, 7, { hide: false, forbidden: 'no' })).toThrow(
      new ForbiddenException('no'),
    );
    expect(() => assertOwnerOrAdmin(stranger, 7, { hide: true, notFound: 'Order 3 not found' })).toThrow(
      new NotFoundException('Order 3 not found'),
    );
  });

  it('ownedBy limits a query to the caller’s rows unless the caller is an admin', () => {
    expect(ownedBy(stranger)).toEqual({ userId: 8 });
    expect(ownedBy(admin)).toEqual({});
  });
});

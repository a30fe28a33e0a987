import type { AuthUser } from '../auth/auth-user.js';

/** What other modules (returns) may ask of the payments module. */
export abstract class OrderRefunds {
  /**
   * Refunds `amountMinor` (minor units of `currency`) of the order by the path of POST /admin/orders/{id}/refunds:
   * the provider's payment first, then the gift cards; the order's payment_status follows. The idempotency key
   * names the refund: a repeat with it answers the first refund and refunds nothing more. Gives the refund's
   * status (`pending` while the provider's answer is unknown: the settling job asks again); throws 400 when the
   * provider refuses or nothing paid is left to refund.
   */
  abstract refund(
    orderId: number,
    amountMinor: number,
    currency: string,
    reason: string,
    idempotencyKey: string,
    staff: AuthUser,
  ): Promise<'pending' | 'succeeded' | 'failed'>;
}

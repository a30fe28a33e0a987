/**
 * The statements of placing and changing an order, written out once instead of built by TypeORM per call (see
 * product-statements.ts), in the text both SQLite and MySQL/MariaDB accept. The INSERTs of the order and its
 * items are written from the entities' columns (`insertEntity`, `insertEntities` in src/database/raw-query.ts).
 */

/** ORDER_MAX_PENDING_PER_USER: the user's pending orders (index `IDX_orders_user_status`). */
export const PENDING_OF_USER =
  "SELECT COUNT(*) AS pending FROM orders WHERE user_id = ? AND status = 'pending'";
/** The same, leaving out the order being placed (already written when it carries an Idempotency-Key). */
export const PENDING_OF_USER_BESIDES = `${PENDING_OF_USER} AND id <> ?`;

/** An order event's owner, deleted accounts included (by primary key). */
export const OWNER = 'SELECT id, username, email FROM users WHERE id = ?';

/**
 * Marking an order paid by hand: its manual payment, if it has one waiting, becomes paid, recorded by the staff
 * (updated_at, recorded_by, recorded_at, order id).
 */
export const MANUAL_PAYMENT_PAID =
  "UPDATE payments SET status = 'paid', updated_at = ?, recorded_by = ?, recorded_at = ? WHERE live_order_id = ? " +
  "AND provider = 'manual' AND status IN ('pending', 'failed')";

/** A payment other than the gift cards' that took the order's money (order id). */
export const MONEY_TAKEN =
  "SELECT id FROM payments WHERE order_id = ? AND provider <> 'gift_card' " +
  "AND status IN ('paid', 'partially_refunded', 'refunded') LIMIT 1";

/**
 * Marking an order paid by hand without a waiting manual payment records one, paid, of the amount due (order id,
 * amount, currency, recorded_by, recorded_at, created_at, updated_at). Not live: a provider payment may be.
 */
export const MANUAL_PAYMENT_RECORDED =
  'INSERT INTO payments (order_id, live_order_id, provider, status, amount_cents, currency, refunded_cents, ' +
  'provider_ref, client_secret, flag, recorded_by, recorded_at, created_at, updated_at) ' +
  "VALUES (?, NULL, 'manual', 'paid', ?, ?, 0, NULL, NULL, NULL, ?, ?, ?, ?)";

/**
 * The order's live payment is cancelled with the order, in the cancelling transaction (updated_at, order id): a
 * payment being created at the same moment sees it cancelled and cancels what its provider made
 * (docs/api.md#payments). Its provider is told after the commit.
 */
export const CANCEL_LIVE_PAYMENT =
  "UPDATE payments SET status = 'cancelled', live_order_id = NULL, updated_at = ? WHERE live_order_id = ? " +
  "AND status IN ('pending', 'requires_action', 'authorized', 'failed')";

/** Payment statuses in flight (the customer or the bank is acting): the expiry leaves their order alone. */
export const PAYMENT_IN_FLIGHT = ['requires_action', 'authorized'];

/** Orders whose payment is in flight, which the expiry of pending orders leaves alone. */
export const ORDERS_WITH_PAYMENT_IN_FLIGHT =
  "SELECT order_id FROM payments WHERE status IN ('requires_action', 'authorized')";

/**
 * What gift cards paid of an order, as a payment of provider `gift_card` taken at checkout (order id, amount,
 * currency, created_at, updated_at): not the order's live payment (a provider payment of `amount_due` may follow),
 * and refunds reach the cards through it like any payment's.
 */
export const GIFT_CARD_PAYMENT =
  'INSERT INTO payments (order_id, live_order_id, provider, status, amount_cents, currency, refunded_cents, ' +
  "provider_ref, client_secret, flag, created_at, updated_at) VALUES (?, NULL, 'gift_card', 'paid', ?, ?, 0, " +
  'NULL, NULL, NULL, ?, ?)';

/** The cancelled order's gift cards got their balance back in the same transaction (updated_at, order id). */
export const CANCEL_GIFT_CARD_PAYMENT =
  "UPDATE payments SET status = 'cancelled', updated_at = ? WHERE order_id = ? AND provider = 'gift_card' " +
  "AND status IN ('paid', 'partially_refunded')";

import type { EntityManager } from 'typeorm';
import { dateFromRow } from '../database/timestamps.js';

/** The columns of a card as the cart and the checkout read it. */
const CARD_COLUMNS = 'g.id, g.code_last4, g.currency_code, g.balance_minor, g.expires_at, g.is_active';

/** The cards applied to a cart, in the order applied (cart id). */
const CARDS_OF_CART =
  `SELECT ${CARD_COLUMNS} FROM cart_gift_cards c INNER JOIN gift_cards g ON g.id = c.gift_card_id ` +
  'WHERE c.cart_id = ? ORDER BY c.created_at, c.gift_card_id';

/** Takes an amount off a card only while its balance covers it (amount, updated_at, id, amount). */
export const TAKE_BALANCE =
  'UPDATE gift_cards SET balance_minor = balance_minor - ?, updated_at = ? WHERE id = ? AND balance_minor >= ?';

/** Gives an amount back to a card (amount, updated_at, id). */
export const GIVE_BALANCE =
  'UPDATE gift_cards SET balance_minor = balance_minor + ?, updated_at = ? WHERE id = ?';

/** Per card of an order: what it took (debits) less what it got back (credits), in the order the cards paid. */
export const NET_OF_ORDER =
  "SELECT gift_card_id, SUM(CASE WHEN kind = 'debit' THEN amount_minor ELSE -amount_minor END) AS net, " +
  'MIN(id) AS first_id FROM gift_card_transactions WHERE order_id = ? GROUP BY gift_card_id ORDER BY first_id';

export const INSERT_TRANSACTION =
  'INSERT INTO gift_card_transactions (gift_card_id, order_id, kind, amount_minor, payment_refund_id, ' +
  'created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)';

export interface CardState {
  id: number;
  codeLast4: string;
  currency: string;
  balance: number;
  expiresAt: Date | null;
  isActive: boolean;
}

interface CardRow {
  id: number | string;
  code_last4: string;
  currency_code: string;
  balance_minor: number | string;
  expires_at: Date | string | null;
  is_active: number | string | boolean;
}

export async function cardsOfCart(manager: EntityManager, cartId: string): Promise<CardState[]> {
  const rows: CardRow[] = await manager.query(CARDS_OF_CART, [cartId]);
  return rows.map(cardState);
}

export function cardState(row: CardRow): CardState {
  return {
    id: Number(row.id),
    codeLast4: row.code_last4,
    currency: row.currency_code,
    balance: Number(row.balance_minor),
    expiresAt: row.expires_at === null ? null : dateFromRow(row.expires_at),
    isActive: row.is_active === true || Number(row.is_active) === 1,
  };
}

/** Why a card cannot pay a document in `currency` now (the 400's rule and message), or null when it can. */
export function refusalOf(
  card: CardState,
  currency: string,
  now: Date,
): { rule: string; message: string } | null {
  if (!card.isActive) return { rule: 'inactive', message: `gift card …${card.codeLast4} is deactivated` };
  if (card.expiresAt !== null && card.expiresAt <= now) {
    return { rule: 'expired', message: `gift card …${card.codeLast4} expired` };
  }
  if (card.currency !== currency) {
    return {
      rule: 'currency',
      message: `gift card …${card.codeLast4} is in ${card.currency.toUpperCase()}, the cart in ${currency.toUpperCase()}`,
    };
  }
  if (card.balance <= 0)
    return { rule: 'noBalance', message: `gift card …${card.codeLast4} has no balance left` };
  return null;
}

/** What each card pays of `total`: in the order given, each as much as its balance, usable cards only. */
export function allocate(cards: readonly CardState[], total: number, currency: string, now: Date): number[] {
  let left = total;
  return cards.map((card) => {
    if (refusalOf(card, currency, now) !== null) return 0;
    const amount = Math.min(card.balance, left);
    left -= amount;
    return amount;
  });
}

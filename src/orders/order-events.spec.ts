import { describe, expect, it } from '@jest/globals';
import { orderFrames, type OrderEventPayload } from './order-events.js';

const order: OrderEventPayload['order'] = {
  id: 41,
  order_number: 'ORD-20261122-7KQ2M9XD',
  total_amount: 10,
  status: 'pending',
  shipping_address: 'x',
  payment_method: 'credit_card',
  payment_status: 'pending',
  fulfillment_status: 'not_fulfilled',
  currency_code: 'usd',
  region_id: 1,
  prices_include_tax: false,
  subtotal: 10,
  discount_total: 0,
  shipping_total: 0,
  shipping_tax_total: 0,
  tax_total: 0,
  gift_card_total: 0,
  gift_cards: [],
  total: 10,
  amount_due: 10,
  email: 'guest@example.com',
  shipping_address_details: null,
  created_at: '2026-11-22T08:00:00.000Z',
  updated_at: '2026-11-22T08:00:00.000Z',
};

describe('orderFrames', () => {
  it("a customer's order: to its owner, and with the owner to the admins' orders channel", () => {
    const user = { id: 7, username: 'jane', email: 'jane@example.com' };
    const payload: OrderEventPayload = { userId: 7, order, user, email: user.email, items: [] };
    expect(orderFrames(payload)).toEqual([
      { to: { userId: 7 }, data: order },
      { to: { channel: 'orders' }, data: { ...order, user } },
    ]);
  });

  it("a guest's order (no owner): to the admins' orders channel only, with user null", () => {
    const payload: OrderEventPayload = {
      userId: null,
      order,
      user: null,
      email: 'guest@example.com',
      items: [],
    };
    expect(orderFrames(payload)).toEqual([{ to: { channel: 'orders' }, data: { ...order, user: null } }]);
  });
});

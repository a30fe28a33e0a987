import { describe, expect, it } from '@jest/globals';
import { draftOrderPayment } from './draft-order-payment.js';
import { emailVerification } from './email-verification.js';
import { orderConfirmation, type OrderMailValues } from './order-confirmation.js';
import { passwordReset } from './password-reset.js';
import { paymentReceived } from './payment-received.js';
import { refundIssued, returnReceived } from './returns.js';
import { shipment } from './shipment.js';
import { escapeHtml, html, lifetime } from './template.js';

const HOSTILE = `<script>alert("x")</script> & 'quoted'`;

const order: OrderMailValues = {
  username: 'jane',
  orderNumber: 'ORD-20261125-ABCD1234',
  currency: 'usd',
  pricesIncludeTax: false,
  subtotal: 60.17,
  discountTotal: 0,
  discounts: [],
  shippingTotal: 0,
  taxTotal: 0,
  giftCardTotal: 0,
  total: 60.17,
  amountDue: 60.17,
  paymentMethod: 'credit_card',
  shippingAddress: '1 Main St',
  items: [
    { productName: 'Espresso cup', quantity: 3, price: 19.99, lineTotal: 59.97 },
    { productName: 'Saucer', quantity: 1, price: 0.2, lineTotal: 0.2 },
  ],
};

describe('html template', () => {
  it('escapes every interpolated value, quotes included, and keeps nested fragments as they are', () => {
    const escaped = '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quoted&#39;';
    expect(escapeHtml(HOSTILE)).toBe(escaped);
    const cell = html`<td>${HOSTILE}</td>`;
    const out = html`<tr title="${HOSTILE}">
      ${[cell, cell]}
    </tr>`.value;
    expect(out).toContain(`title="${escaped}"`);
    expect(out.split(`<td>${escaped}</td>`)).toHaveLength(3); // both cells, escaped once
    expect(out).not.toContain('<script>');
  });

  it('says a lifetime in hours or minutes', () => {
    expect([lifetime(3600), lifetime(7200), lifetime(900), lifetime(60)]).toEqual([
      '1 hour',
      '2 hours',
      '15 minutes',
      '1 minute',
    ]);
  });
});

describe('mail templates', () => {
  it('order confirmation has a line per discount, named by its code and description', () => {
    const mail = orderConfirmation({
      ...order,
      discountTotal: 12,
      total: 48.17,
      amountDue: 48.17,
      discounts: [
        { code: 'TENOFF', description: '10 off', amount: 10 },
        { code: null, description: 'Launch week', amount: 2 },
      ],
    });
    expect(mail.text).toContain('Discount TENOFF: 10 off: -$10.00');
    expect(mail.text).toContain('Discount Launch week: -$2.00');
    expect(mail.html).toContain('Discount TENOFF: 10 off');
  });

  it('order confirmation lists each item with quantity, price and subtotal, and the total, in both parts', () => {
    const mail = orderConfirmation(order);
    expect(mail.subject).toBe('Your order ORD-20261125-ABCD1234');
    expect(mail.text).toContain('- Espresso cup: 3 × $19.99 = $59.97');
    expect(mail.text).toContain('- Saucer: 1 × $0.20 = $0.20');
    expect(mail.text).toContain('Total: $60.17');
    expect(mail.text).not.toContain('Tax');
    expect(mail.html).toMatch(
      /<td>Espresso cup<\/td>\s*<td[^>]*>3<\/td>\s*<td[^>]*>\$19\.99<\/td>\s*<td[^>]*>\$59\.97<\/td>/,
    );
    expect(mail.html).toContain('$60.17');
  });

  it('amounts carry their currency in its own digits, and taxes show as included or added', () => {
    const yen = orderConfirmation({
      ...order,
      currency: 'jpy',
      subtotal: 3998,
      shippingTotal: 500,
      taxTotal: 450,
      total: 4948,
      amountDue: 4948,
      items: [{ productName: 'Cup', quantity: 2, price: 1999, lineTotal: 3998 }],
    });
    expect(yen.text).toContain('- Cup: 2 × ¥1,999 = ¥3,998');
    expect(yen.text).toContain('Tax: ¥450');
    expect(yen.text).toContain('Total: ¥4,948');
    const euro = orderConfirmation({ ...order, currency: 'eur', pricesIncludeTax: true, taxTotal: 9.61 });
    expect(euro.text).toContain('Included tax: €9.61');
  });

  it('escapes user-supplied values in the HTML part and leaves the text part plain', () => {
    const values = { ...order, username: HOSTILE, shippingAddress: HOSTILE };
    values.items = [{ productName: HOSTILE, quantity: 1, price: 1, lineTotal: 1 }];
    for (const mail of [orderConfirmation(values), paymentReceived(values)]) {
      expect(mail.html).not.toContain('<script>');
      expect(mail.html).toContain(escapeHtml(HOSTILE));
      expect(mail.text).toContain(HOSTILE);
    }
  });

  it('payment received names the order, amount and method', () => {
    const mail = paymentReceived(order);
    expect(mail.subject).toBe('Payment received for order ORD-20261125-ABCD1234');
    expect(mail.text).toContain('your payment of $60.17 (credit_card) for order ORD-20261125-ABCD1234');
  });

  it('password reset and verification carry the link and the token, and say how long they work', () => {
    const values = {
      username: 'jane',
      token: 'tok_123',
      link: 'https://shop.example/x?token=tok_123&a=1',
      ttlSeconds: 3600,
    };
    const reset = passwordReset(values);
    expect(reset.subject).toBe('Reset your password');
    expect(reset.text).toContain('https://shop.example/x?token=tok_123&a=1');
    expect(reset.text).toContain('for 1 hour');
    expect(reset.html).toContain('href="https://shop.example/x?token=tok_123&amp;a=1"');
    const verify = emailVerification({ ...values, ttlSeconds: 172800 });
    expect(verify.subject).toBe('Confirm your e-mail address');
    expect(verify.text).toContain('tok_123');
    expect(verify.text).toContain('for 48 hours');
  });

  it("a draft order's payment link names the order and the amount due, the link escaped in the HTML part", () => {
    const mail = draftOrderPayment({
      orderNumber: 'ORD-20261125-ABCD1234',
      currency: 'jpy',
      amountDue: 1999,
      link: 'https://shop.example/orders/7?token=tok_123&a=1',
    });
    expect(mail.subject).toBe('Your order ORD-20261125-ABCD1234 is ready for payment');
    expect(mail.text).toContain('To pay ¥1,999, open:');
    expect(mail.text).toContain('https://shop.example/orders/7?token=tok_123&a=1');
    expect(mail.html).toContain('href="https://shop.example/orders/7?token=tok_123&amp;a=1"');
  });

  it('shipment names the units, the carrier and the tracking number, and links the tracking page (escaped)', () => {
    const mail = shipment({
      username: 'jane',
      orderNumber: 'ORD-1',
      carrier: 'DHL',
      trackingNumber: 'TN 1',
      trackingUrl: 'https://track.example/?id=1&x="2"',
      items: [{ productName: HOSTILE, quantity: 2 }],
    });
    expect(mail.subject).toBe('Your order ORD-1 has shipped');
    expect(mail.text).toContain('is on its way with DHL');
    expect(mail.text).toContain(`- ${HOSTILE}: 2`);
    expect(mail.text).toContain('Tracking number: TN 1');
    expect(mail.text).toContain('Track it: https://track.example/?id=1&x="2"');
    expect(mail.html).toContain('<a href="https://track.example/?id=1&amp;x=&quot;2&quot;">');
    expect(mail.html).not.toContain('<script>');
    const untracked = shipment({
      username: 'jane',
      orderNumber: 'ORD-1',
      carrier: null,
      trackingNumber: null,
      trackingUrl: null,
      items: [],
    });
    expect(untracked.text).not.toContain('Track');
    expect(untracked.html).not.toContain('<a ');
  });

  it('return received and refund issued name the return, the order and the amount in its currency', () => {
    const values = {
      username: 'jane',
      orderNumber: 'ORD-1',
      returnId: 7,
      currency: 'eur',
      refundAmount: 11.9,
      items: [{ productName: 'Cup', quantity: 1 }],
    };
    const received = returnReceived(values);
    expect(received.subject).toBe('We have received your return for order ORD-1');
    expect(received.text).toContain('return 7 for order ORD-1');
    expect(received.text).toContain('- Cup: 1');
    expect(received.text).toContain('refunding €11.90');
    const refunded = refundIssued(values);
    expect(refunded.subject).toBe('Refund issued for order ORD-1');
    expect(refunded.text).toContain('refunded €11.90 for your return 7 of order ORD-1');
    expect(refunded.html).toContain('<strong>€11.90</strong>');
  });
});

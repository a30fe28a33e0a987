import type { OrderMailValues } from './order-confirmation.js';
import { html, type MailContent, money, page } from './template.js';

export function paymentReceived(order: OrderMailValues): MailContent {
  const subject = `Payment received for order ${order.orderNumber}`;
  const text = [
    `Hello ${order.username},`,
    '',
    `we have received your payment of ${money(order.amountDue, order.currency)} (${order.paymentMethod}) for order ${order.orderNumber}.`,
    `It will be shipped to: ${order.shippingAddress}`,
  ].join('\n');
  const body = html`<p>Hello ${order.username},</p>
    <p>
      we have received your payment of
      <strong>${money(order.amountDue, order.currency)}</strong> (${order.paymentMethod}) for order
      <strong>${order.orderNumber}</strong>.
    </p>
    <p>It will be shipped to: ${order.shippingAddress}</p>`;
  return { subject, text, html: page(subject, body) };
}

import { html, type MailContent, money, page } from './template.js';

export interface OrderMailValues {
  username: string;
  orderNumber: string;
  totalCents: number;
  paymentMethod: string;
  shippingAddress: string;
  items: Array<{ productName: string; quantity: number; unitPriceCents: number }>;
}

export function orderConfirmation(order: OrderMailValues): MailContent {
  const subject = `Your order ${order.orderNumber}`;
  const lines = order.items.map(
    (item) =>
      `- ${item.productName}: ${item.quantity} × ${money(item.unitPriceCents)} = ${money(item.quantity * item.unitPriceCents)}`,
  );
  const text = [
    `Hello ${order.username},`,
    '',
    `thank you for your order ${order.orderNumber}. We have received it:`,
    '',
    ...lines,
    '',
    `Total: ${money(order.totalCents)}`,
    `Payment method: ${order.paymentMethod}`,
    `Shipping address: ${order.shippingAddress}`,
    '',
    'We will write again when your payment has arrived.',
  ].join('\n');
  const rows = order.items.map(
    (item) =>
      html`<tr>
        <td>${item.productName}</td>
        <td style="text-align: right">${item.quantity}</td>
        <td style="text-align: right">${money(item.unitPriceCents)}</td>
        <td style="text-align: right">${money(item.quantity * item.unitPriceCents)}</td>
      </tr>`,
  );
  const body = html`<p>Hello ${order.username},</p>
    <p>thank you for your order <strong>${order.orderNumber}</strong>. We have received it:</p>
    <table cellpadding="4">
      <thead>
        <tr>
          <th align="left">Product</th>
          <th>Quantity</th>
          <th>Price</th>
          <th>Subtotal</th>
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
      <tfoot>
        <tr>
          <th align="left" colspan="3">Total</th>
          <th style="text-align: right">${money(order.totalCents)}</th>
        </tr>
      </tfoot>
    </table>
    <p>Payment method: ${order.paymentMethod}<br />Shipping address: ${order.shippingAddress}</p>
    <p>We will write again when your payment has arrived.</p>`;
  return { subject, text, html: page(subject, body) };
}

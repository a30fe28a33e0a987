import { html, type MailContent, money, page } from './template.js';

/** An order as its e-mails show it: the calculator's amounts in the currency's major units (as the API). */
export interface OrderMailValues {
  username: string;
  orderNumber: string;
  currency: string;
  pricesIncludeTax: boolean;
  subtotal: number;
  discountTotal: number;
  shippingTotal: number;
  taxTotal: number;
  giftCardTotal: number;
  total: number;
  amountDue: number;
  paymentMethod: string;
  shippingAddress: string;
  items: Array<{ productName: string; quantity: number; price: number; lineTotal: number }>;
  /** The order's promotions: a line each (their amounts add up to discountTotal). */
  discounts: Array<{ code: string | null; description: string; amount: number }>;
}

/** The summary rows under the lines: subtotal, discounts, shipping, taxes, total (the zero ones left out). */
function summaryOf(order: OrderMailValues): Array<[string, string]> {
  const amount = (value: number) => money(value, order.currency);
  const rows: Array<[string, string]> = [['Subtotal', amount(order.subtotal)]];
  for (const discount of order.discounts) {
    if (discount.amount === 0) continue;
    const name = [discount.code, discount.description].filter((part) => part).join(': ');
    rows.push([name === '' ? 'Discount' : `Discount ${name}`, `-${amount(discount.amount)}`]);
  }
  // An order whose discounts are not itemised (none of its adjustments names a promotion).
  if (order.discountTotal > 0 && order.discounts.length === 0) {
    rows.push(['Discount', `-${amount(order.discountTotal)}`]);
  }
  rows.push(['Shipping', amount(order.shippingTotal)]);
  if (order.taxTotal > 0)
    rows.push([order.pricesIncludeTax ? 'Included tax' : 'Tax', amount(order.taxTotal)]);
  rows.push(['Total', amount(order.total)]);
  if (order.giftCardTotal > 0) {
    rows.push(['Gift cards', `-${amount(order.giftCardTotal)}`], ['To pay', amount(order.amountDue)]);
  }
  return rows;
}

export function orderConfirmation(order: OrderMailValues): MailContent {
  const subject = `Your order ${order.orderNumber}`;
  const amount = (value: number) => money(value, order.currency);
  const lines = order.items.map(
    (item) => `- ${item.productName}: ${item.quantity} × ${amount(item.price)} = ${amount(item.lineTotal)}`,
  );
  const summary = summaryOf(order);
  const text = [
    `Hello ${order.username},`,
    '',
    `thank you for your order ${order.orderNumber}. We have received it:`,
    '',
    ...lines,
    '',
    ...summary.map(([label, value]) => `${label}: ${value}`),
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
        <td style="text-align: right">${amount(item.price)}</td>
        <td style="text-align: right">${amount(item.lineTotal)}</td>
      </tr>`,
  );
  const footer = summary.map(
    ([label, value]) =>
      html`<tr>
        <th align="left" colspan="3">${label}</th>
        <th style="text-align: right">${value}</th>
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
        ${footer}
      </tfoot>
    </table>
    <p>Payment method: ${order.paymentMethod}<br />Shipping address: ${order.shippingAddress}</p>
    <p>We will write again when your payment has arrived.</p>`;
  return { subject, text, html: page(subject, body) };
}

import { html, type MailContent, money, page } from './template.js';

/** A return as its e-mails show it (amounts in the currency's major units, as the API). */
export interface ReturnMailValues {
  username: string;
  orderNumber: string;
  returnId: number;
  currency: string;
  /** What is refunded for it (its received units' shares, and the shipping when refunded). */
  refundAmount: number;
  items: Array<{ productName: string; quantity: number }>;
}

export function returnReceived(values: ReturnMailValues): MailContent {
  const subject = `We have received your return for order ${values.orderNumber}`;
  const text = [
    `Hello ${values.username},`,
    '',
    `we have received your return ${values.returnId} for order ${values.orderNumber}:`,
    '',
    ...values.items.map((item) => `- ${item.productName}: ${item.quantity}`),
    '',
    `We are refunding ${money(values.refundAmount, values.currency)} and will write again once it is on its way.`,
  ].join('\n');
  const body = html`<p>Hello ${values.username},</p>
    <p>we have received your return ${values.returnId} for order <strong>${values.orderNumber}</strong>:</p>
    <ul>
      ${values.items.map((item) => html`<li>${item.productName}: ${item.quantity}</li>`)}
    </ul>
    <p>
      We are refunding <strong>${money(values.refundAmount, values.currency)}</strong> and will write again
      once it is on its way.
    </p>`;
  return { subject, text, html: page(subject, body) };
}

export function refundIssued(values: ReturnMailValues): MailContent {
  const subject = `Refund issued for order ${values.orderNumber}`;
  const amount = money(values.refundAmount, values.currency);
  const text = [
    `Hello ${values.username},`,
    '',
    `we have refunded ${amount} for your return ${values.returnId} of order ${values.orderNumber}.`,
    'It goes back the way you paid.',
  ].join('\n');
  const body = html`<p>Hello ${values.username},</p>
    <p>
      we have refunded <strong>${amount}</strong> for your return ${values.returnId} of order
      <strong>${values.orderNumber}</strong>.
    </p>
    <p>It goes back the way you paid.</p>`;
  return { subject, text, html: page(subject, body) };
}

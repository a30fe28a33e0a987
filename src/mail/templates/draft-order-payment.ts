import { html, type MailContent, money, page } from './template.js';

/** The values of the e-mail that sends a draft order (placed by staff) to its customer for payment. */
export interface DraftOrderPaymentValues {
  orderNumber: string;
  currency: string;
  amountDue: number;
  /** The storefront page of the order, with its order token: it works without signing in. */
  link: string;
}

export function draftOrderPayment(values: DraftOrderPaymentValues): MailContent {
  const subject = `Your order ${values.orderNumber} is ready for payment`;
  const due = money(values.amountDue, values.currency);
  const text = [
    'Hello,',
    '',
    `we have prepared order ${values.orderNumber} for you. To pay ${due}, open:`,
    '',
    values.link,
    '',
    'The link shows the order without signing in: do not share it.',
  ].join('\n');
  const body = html`<p>Hello,</p>
    <p>we have prepared order <strong>${values.orderNumber}</strong> for you.</p>
    <p><a href="${values.link}">Pay ${due}</a></p>
    <p>The link shows the order without signing in: do not share it.</p>`;
  return { subject, text, html: page(subject, body) };
}

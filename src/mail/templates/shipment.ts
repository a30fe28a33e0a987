import { html, type MailContent, page } from './template.js';

/** A fulfilment as its e-mail shows it. */
export interface ShipmentMailValues {
  username: string;
  orderNumber: string;
  carrier: string | null;
  trackingNumber: string | null;
  trackingUrl: string | null;
  items: Array<{ productName: string; quantity: number }>;
}

export function shipment(values: ShipmentMailValues): MailContent {
  const subject = `Your order ${values.orderNumber} has shipped`;
  const carrier = values.carrier ?? 'the carrier';
  const tracking = [
    values.trackingNumber === null ? null : `Tracking number: ${values.trackingNumber}`,
    values.trackingUrl === null ? null : `Track it: ${values.trackingUrl}`,
  ].filter((line): line is string => line !== null);
  const text = [
    `Hello ${values.username},`,
    '',
    `part of your order ${values.orderNumber} is on its way with ${carrier}:`,
    '',
    ...values.items.map((item) => `- ${item.productName}: ${item.quantity}`),
    '',
    ...tracking,
  ].join('\n');
  const body = html`<p>Hello ${values.username},</p>
    <p>part of your order <strong>${values.orderNumber}</strong> is on its way with ${carrier}:</p>
    <ul>
      ${values.items.map((item) => html`<li>${item.productName}: ${item.quantity}</li>`)}
    </ul>
    ${values.trackingNumber === null ? '' : html`<p>Tracking number: ${values.trackingNumber}</p>`}
    ${values.trackingUrl === null ? '' : html`<p><a href="${values.trackingUrl}">Track your parcel</a></p>`}`;
  return { subject, text, html: page(subject, body) };
}

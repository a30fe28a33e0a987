import type { Schemas } from '@commerce/sdk';
import { client } from './client';
import { formatDateTime, formatMoney, humanize } from './format';
import { Alert, DataTable, useLoad } from './ui';

type Entry = Schemas['OrderTimelineEntryDto'];

/** Who did it, as staff read it. */
export function actorText({ type, id }: { type: string; id: number | null }): string {
  switch (type) {
    case 'staff':
      return id === null ? 'Staff' : `Staff #${id}`;
    case 'customer':
      return id === null ? 'Customer' : `Customer #${id}`;
    case 'guest':
      return 'Guest';
    case 'payment_provider':
      return 'Payment provider';
    default:
      return 'System';
  }
}

/** How many units a fulfilment's or a return's items carry, in words. */
function units(items: unknown): string {
  const count = unitCount(items);
  return `${count} unit${count === 1 ? '' : 's'}`;
}

function unitCount(items: unknown): number {
  return Array.isArray(items)
    ? items.reduce((sum: number, item: { quantity?: number }) => sum + (item.quantity ?? 0), 0)
    : 0;
}

/** What happened, in a sentence; amounts in the order's currency (`currency` when an entry names none). */
export function entryText(entry: Entry, currency: string | null): string {
  const data = entry.data as Record<string, unknown>;
  const money = (value: unknown) =>
    formatMoney(Number(value), typeof data.currency === 'string' ? data.currency : currency);
  switch (entry.type) {
    case 'placed':
      return `Order ${String(data.order_number)} placed: ${money(data.total)}`;
    case 'payment':
      return `Payment #${String(data.payment_id)} (${String(data.provider)}) of ${money(data.amount)}: ${humanize(String(data.status))}`;
    case 'refund':
      return `Refund of ${money(data.amount)}: ${humanize(String(data.status))}${data.reason ? ` (${String(data.reason)})` : ''}`;
    case 'status_changed':
      if (
        data.status === data.previous_status &&
        data.payment_status === data.previous_payment_status &&
        typeof data.fulfillment_status === 'string'
      ) {
        return `Fulfilment status ${humanize(data.fulfillment_status)}`;
      }
      return `Status ${humanize(String(data.previous_status ?? '?'))} → ${humanize(String(data.status))}, payment ${humanize(String(data.previous_payment_status ?? '?'))} → ${humanize(String(data.payment_status))}`;
    case 'email_sent':
      return `E-mail ${humanize(String(data.kind))} sent to ${String(data.to)}`;
    case 'note':
      return `Note: ${String(data.text)}`;
    case 'fulfilment_created':
    case 'fulfilment_delivered':
    case 'fulfilment_cancelled': {
      const verb = {
        fulfilment_created: 'shipped',
        fulfilment_delivered: 'delivered',
        fulfilment_cancelled: 'cancelled',
      }[entry.type];
      const carrier = data.carrier ? ` with ${String(data.carrier)}` : '';
      const tracking = data.tracking_number ? ` (${String(data.tracking_number)})` : '';
      return `Fulfilment #${String(data.fulfilment_id)} ${verb}: ${units(data.items)}${carrier}${tracking}`;
    }
    case 'return_requested':
    case 'return_received':
    case 'return_rejected': {
      const verb = {
        return_requested: 'requested',
        return_received: 'received',
        return_rejected: 'rejected',
      }[entry.type];
      const why = data.reason ? ` (${String(data.reason)})` : '';
      return `Return #${String(data.return_id)} ${verb}: ${units(data.items)}, refund ${money(data.refund_amount)}${why}`;
    }
    default:
      // Entries of modules added later: their type and data as given.
      return `${humanize(entry.type)} ${JSON.stringify(data)}`;
  }
}

/** The order's timeline, oldest first; `version` changes whenever the page knows the order changed. */
export function OrderTimeline({
  orderId,
  currency,
  version,
}: {
  orderId: number;
  currency: string | null;
  version: number;
}) {
  const timeline = useLoad(
    () => client.data(client.api.GET('/admin/orders/{id}/timeline', { params: { path: { id: orderId } } })),
    [orderId, version],
  );
  return (
    <section aria-labelledby="timeline-heading">
      <h2 id="timeline-heading">Timeline</h2>
      <Alert message={timeline.error} />
      {timeline.data !== null && (
        <DataTable caption="What happened to the order, oldest first" columns={['When', 'Who', 'What']}>
          {timeline.data.map((entry, index) => (
            <tr key={index} data-type={entry.type}>
              <td>{formatDateTime(entry.at)}</td>
              <td>{actorText(entry.actor)}</td>
              <td>{entryText(entry, currency)}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}

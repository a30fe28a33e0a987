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
      return `Status ${humanize(String(data.previous_status ?? '?'))} → ${humanize(String(data.status))}, payment ${humanize(String(data.previous_payment_status ?? '?'))} → ${humanize(String(data.payment_status))}`;
    case 'email_sent':
      return `E-mail ${humanize(String(data.kind))} sent to ${String(data.to)}`;
    case 'note':
      return `Note: ${String(data.text)}`;
    default:
      // Entries of other modules (fulfilments, returns): their type and data as given.
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

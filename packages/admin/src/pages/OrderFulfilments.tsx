import { useState, type FormEvent } from 'react';
import type { Schemas } from '@commerce/sdk';
import { client } from '../client';
import { formatDateTime, humanize } from '../format';
import { Alert, CheckboxField, CountField, DataTable, RowButton, Status, TextField, useAction } from '../ui';

type Order = Schemas['OrderDetailResponseDto'];
type Fulfilment = Schemas['OrderFulfilmentDto'];

/** Each item's units not carried by a live (not cancelled) fulfilment. */
function unfulfilledOf(order: Order): Map<number, number> {
  const left = new Map(order.items.map((item) => [item.id, item.quantity]));
  for (const fulfilment of order.fulfilments) {
    if (fulfilment.cancelled_at !== null) continue;
    for (const unit of fulfilment.items)
      left.set(unit.order_item_id, (left.get(unit.order_item_id) ?? 0) - unit.quantity);
  }
  return left;
}

/** What a fulfilment carries, by product name. */
function unitsText(order: Order, fulfilment: Fulfilment): string {
  return fulfilment.items
    .map(
      (unit) =>
        `${order.items.find((item) => item.id === unit.order_item_id)?.product_name ?? '?'} × ${unit.quantity}`,
    )
    .join(', ');
}

/** The order's fulfilments: ship units with carrier and tracking, deliver, cancel (docs/console.md). */
export function OrderFulfilments({ order, onChange }: { order: Order; onChange: () => void }) {
  const left = unfulfilledOf(order);
  const [units, setUnits] = useState<Record<number, string>>({});
  const [carrier, setCarrier] = useState('');
  const [trackingNumber, setTrackingNumber] = useState('');
  const [trackingUrl, setTrackingUrl] = useState('');
  const [notify, setNotify] = useState(true);
  const fulfil = useAction();
  const act = useAction();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const items = order.items
      .map((item) => ({ order_item_id: item.id, quantity: Number(units[item.id] ?? '0') }))
      .filter((item) => item.quantity > 0);
    const body = {
      items,
      ...(carrier.trim() !== '' && { carrier: carrier.trim() }),
      ...(trackingNumber.trim() !== '' && { tracking_number: trackingNumber.trim() }),
      ...(trackingUrl.trim() !== '' && { tracking_url: trackingUrl.trim() }),
      notify_customer: notify,
    };
    void fulfil
      .run(
        () =>
          client.data(
            client.api.POST('/admin/orders/{id}/fulfilments', { params: { path: { id: order.id } }, body }),
          ),
        'Fulfilment created.',
      )
      .then((ok) => {
        if (!ok) return;
        setUnits({});
        setCarrier('');
        setTrackingNumber('');
        setTrackingUrl('');
        onChange();
      });
  };

  const change = (fulfilment: Fulfilment, what: 'deliver' | 'cancel') => {
    const path = { params: { path: { id: fulfilment.id } } };
    void act
      .run(
        () =>
          client.data(
            what === 'deliver'
              ? client.api.POST('/admin/fulfilments/{id}/deliver', path)
              : client.api.POST('/admin/fulfilments/{id}/cancel', path),
          ),
        what === 'deliver'
          ? `Fulfilment #${fulfilment.id} delivered.`
          : `Fulfilment #${fulfilment.id} cancelled.`,
      )
      .then((ok) => ok && onChange());
  };

  const open = [...left.values()].some((count) => count > 0);
  return (
    <section aria-labelledby="fulfilments-heading">
      <h2 id="fulfilments-heading">Fulfilments</h2>
      <p>
        Fulfilment:{' '}
        <span className={`badge badge-${order.fulfillment_status}`}>
          {humanize(order.fulfillment_status)}
        </span>
      </p>
      {order.fulfilments.length > 0 && (
        <DataTable
          columns={['Fulfilment', 'Units', 'Carrier', 'Tracking', 'Shipped', 'Delivered', 'Actions']}
        >
          {order.fulfilments.map((fulfilment) => (
            <tr key={fulfilment.id}>
              <th scope="row">
                #{fulfilment.id}
                {fulfilment.cancelled_at !== null && (
                  <span className="badge badge-cancelled"> Cancelled</span>
                )}
              </th>
              <td>{unitsText(order, fulfilment)}</td>
              <td>{fulfilment.carrier ?? ''}</td>
              <td>
                {fulfilment.tracking_url !== null ? (
                  <a href={fulfilment.tracking_url} target="_blank" rel="noreferrer noopener">
                    {fulfilment.tracking_number ?? 'Track'}
                  </a>
                ) : (
                  (fulfilment.tracking_number ?? '')
                )}
              </td>
              <td>{formatDateTime(fulfilment.shipped_at)}</td>
              <td>{fulfilment.delivered_at === null ? '' : formatDateTime(fulfilment.delivered_at)}</td>
              <td>
                {fulfilment.cancelled_at === null && fulfilment.delivered_at === null && (
                  <>
                    <RowButton
                      label="Deliver"
                      of={`fulfilment #${fulfilment.id}`}
                      disabled={act.busy}
                      onClick={() => change(fulfilment, 'deliver')}
                    />{' '}
                    <RowButton
                      label="Cancel"
                      of={`fulfilment #${fulfilment.id}`}
                      danger
                      disabled={act.busy}
                      onClick={() => change(fulfilment, 'cancel')}
                    />
                  </>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <Alert message={act.error} />
      <Status message={act.status} />
      {open && (
        <form className="inline-form" onSubmit={submit} noValidate aria-label="Fulfil units">
          {order.items
            .filter((item) => (left.get(item.id) ?? 0) > 0)
            .map((item) => (
              <CountField
                key={item.id}
                label={`Units of ${item.product_name}${item.variant_title === null ? '' : ` (${item.variant_title})`}`}
                hint={`${left.get(item.id)} not fulfilled`}
                max={left.get(item.id)}
                value={units[item.id] ?? ''}
                onChange={(event) => setUnits((current) => ({ ...current, [item.id]: event.target.value }))}
              />
            ))}
          <TextField
            label="Carrier"
            maxLength={100}
            value={carrier}
            error={fulfil.fields.carrier}
            onChange={(event) => setCarrier(event.target.value)}
          />
          <TextField
            label="Tracking number"
            maxLength={100}
            value={trackingNumber}
            error={fulfil.fields.tracking_number}
            onChange={(event) => setTrackingNumber(event.target.value)}
          />
          <TextField
            label="Tracking URL"
            type="url"
            value={trackingUrl}
            error={fulfil.fields.tracking_url}
            onChange={(event) => setTrackingUrl(event.target.value)}
          />
          <CheckboxField
            label="E-mail the customer"
            checked={notify}
            onChange={(event) => setNotify(event.target.checked)}
          />
          <button type="submit" disabled={fulfil.busy}>
            Fulfil
          </button>
        </form>
      )}
      <Alert message={fulfil.error} />
      <Status message={fulfil.status} />
    </section>
  );
}

import { useState } from 'react';
import type { Schemas } from '@commerce/sdk';
import { client } from '../client';
import { formatDateTime, formatMoney, humanize } from '../format';
import { Alert, CheckboxField, CountField, DataTable, Status, TextField, useAction, useLoad } from '../ui';

type Order = Schemas['OrderDetailResponseDto'];
type Return = Schemas['ReturnResponseDto'];

/** What staff enter to receive a return: the units that arrived and whether they go back in stock, per item. */
type Receipt = Record<number, { quantity: string; restock: boolean }>;

/** A requested return: receive what arrived (restock, refund the shipping) or reject it with a reason. */
function ReturnDecision({
  order,
  ret,
  onDone,
}: {
  order: Order;
  ret: Return;
  onDone: (message: string) => void;
}) {
  const [receipt, setReceipt] = useState<Receipt>(
    Object.fromEntries(
      ret.items.map((item) => [item.order_item_id, { quantity: String(item.quantity), restock: true }]),
    ),
  );
  const [refundShipping, setRefundShipping] = useState(false);
  const [reason, setReason] = useState('');
  const action = useAction();
  const path = { params: { path: { id: ret.id } } };
  const nameOf = (itemId: number) => order.items.find((item) => item.id === itemId)?.product_name ?? '?';

  const receive = () => {
    const items = ret.items
      .map((item) => ({
        order_item_id: item.order_item_id,
        quantity: Number(receipt[item.order_item_id]?.quantity ?? '0'),
        restock: receipt[item.order_item_id]?.restock ?? false,
      }))
      .filter((item) => item.quantity > 0);
    void action
      .run(() =>
        client.data(
          client.api.POST('/admin/returns/{id}/receive', {
            ...path,
            body: { items, refund_shipping: refundShipping },
          }),
        ),
      )
      .then((ok) => ok && onDone(`Return #${ret.id} received.`));
  };
  const reject = () =>
    void action
      .run(() =>
        client.data(
          client.api.POST('/admin/returns/{id}/reject', { ...path, body: { reason: reason.trim() } }),
        ),
      )
      .then((ok) => ok && onDone(`Return #${ret.id} rejected.`));

  return (
    <form
      className="inline-form"
      aria-label={`Return #${ret.id}`}
      onSubmit={(event) => event.preventDefault()}
      noValidate
    >
      {ret.items.map((item) => (
        <div key={item.order_item_id}>
          <CountField
            label={`Received units of ${nameOf(item.order_item_id)} (return #${ret.id})`}
            max={item.quantity}
            value={receipt[item.order_item_id]?.quantity ?? ''}
            onChange={(event) =>
              setReceipt((current) => ({
                ...current,
                [item.order_item_id]: { ...current[item.order_item_id], quantity: event.target.value },
              }))
            }
          />
          <CheckboxField
            label={`Restock ${nameOf(item.order_item_id)} (return #${ret.id})`}
            checked={receipt[item.order_item_id]?.restock ?? false}
            onChange={(event) =>
              setReceipt((current) => ({
                ...current,
                [item.order_item_id]: { ...current[item.order_item_id], restock: event.target.checked },
              }))
            }
          />
        </div>
      ))}
      <CheckboxField
        label={`Refund the shipping (return #${ret.id})`}
        checked={refundShipping}
        error={action.fields.refund_shipping}
        onChange={(event) => setRefundShipping(event.target.checked)}
      />
      <button type="button" disabled={action.busy} onClick={receive}>
        Receive return #{ret.id}
      </button>
      <TextField
        label={`Reason to reject return #${ret.id}`}
        maxLength={500}
        value={reason}
        error={action.fields.reason}
        onChange={(event) => setReason(event.target.value)}
      />
      <button type="button" className="danger" disabled={action.busy} onClick={reject}>
        Reject return #{ret.id}
      </button>
      <Alert message={action.error} />
      <Status message={action.status} />
    </form>
  );
}

/** The order's returns: what was requested and what each refunds; staff receive or reject them (docs/console.md). */
export function OrderReturns({ order, onChange }: { order: Order; onChange: () => void }) {
  const path = { params: { path: { id: order.id } } };
  const returns = useLoad(
    () => client.data(client.api.GET('/orders/{id}/returns', path)),
    [order.id, order.updated_at],
  );
  const retry = useAction();
  const money = (value: number) => formatMoney(value, order.currency_code);
  const nameOf = (itemId: number) => order.items.find((item) => item.id === itemId)?.product_name ?? '?';
  const changed = () => {
    void returns.reload();
    onChange();
  };
  const retryRefund = (ret: Return) =>
    void retry
      .run(
        () =>
          client.data(client.api.POST('/admin/returns/{id}/refund', { params: { path: { id: ret.id } } })),
        `Refund of return #${ret.id} asked again.`,
      )
      .then((ok) => ok && changed());

  return (
    <section aria-labelledby="returns-heading">
      <h2 id="returns-heading">Returns</h2>
      <Alert message={returns.error} />
      {returns.data !== null &&
        (returns.data.length === 0 ? (
          <p>No return has been requested for this order.</p>
        ) : (
          <>
            <DataTable
              columns={['Return', 'Status', 'Units', ['Refund', 'number'], 'Refund status', 'Requested']}
            >
              {returns.data.map((ret) => (
                <tr key={ret.id}>
                  <th scope="row">#{ret.id}</th>
                  <td>
                    <span className={`badge badge-${ret.status}`}>{humanize(ret.status)}</span>
                    {ret.reject_reason !== null && <span className="sub"> {ret.reject_reason}</span>}
                  </td>
                  <td>
                    {ret.items
                      .map(
                        (item) =>
                          `${nameOf(item.order_item_id)} × ${item.received_quantity ?? item.quantity}` +
                          (item.reason === null || item.reason === '' ? '' : ` (${item.reason})`),
                      )
                      .join(', ')}
                  </td>
                  <td className="number">{money(ret.refund_amount)}</td>
                  <td>
                    {ret.refund_status === null ? '' : humanize(ret.refund_status)}
                    {ret.refund_error !== null && <span className="sub"> {ret.refund_error}</span>}
                    {ret.status === 'received' && ret.refund_status !== 'succeeded' && (
                      <>
                        {' '}
                        <button type="button" disabled={retry.busy} onClick={() => retryRefund(ret)}>
                          Retry refund of return #{ret.id}
                        </button>
                      </>
                    )}
                  </td>
                  <td>{formatDateTime(ret.created_at)}</td>
                </tr>
              ))}
            </DataTable>
            {returns.data
              .filter((ret) => ret.status === 'requested')
              .map((ret) => (
                <ReturnDecision
                  key={ret.id}
                  order={order}
                  ret={ret}
                  onDone={(message) => {
                    retry.setStatus(message);
                    changed();
                  }}
                />
              ))}
          </>
        ))}
      <Alert message={retry.error} />
      <Status message={retry.status} />
    </section>
  );
}

import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { Schemas } from '@commerce/sdk';
import { client } from '../client';
import { amountStep, formatDateTime, formatMoney, formatRate, humanize } from '../format';
import { useLive } from '../live';
import { OrderNotes } from '../order-notes';
import { OrderTimeline } from '../order-timeline';
import { Link } from '../router';
import { Alert, Page, Status, DataTable, TextField, useAction, useLoad } from '../ui';
import { OrderFulfilments } from './OrderFulfilments';
import { OrderReturns } from './OrderReturns';

type StatusChange = Schemas['UpdateOrderStatusDto'];
type Order = Schemas['OrderDetailResponseDto'];
type TaxLine = Schemas['TaxLineDto'];
type Adjustment = Schemas['AdjustmentDto'];

/** What shows of a promotion: its code and description (an automatic promotion has no code). */
function promotionName({ code, description }: { code: string | null; description: string | null }): string {
  return [code, description].filter((part) => part !== null && part !== '').join(': ') || 'Discount';
}

/** A row of the order's totals: a label and an amount (a second cell for the tax of a tax-inclusive order). */
function TotalRow({ label, value, strong }: { label: string; value: string; strong?: boolean }) {
  return (
    <tr className={strong === true ? 'strong' : undefined}>
      <th scope="row" colSpan={7}>
        {label}
      </th>
      <td className="number">{value}</td>
    </tr>
  );
}

/** The order's totals as the API computed them, in the order's currency. */
function Totals({ order, money }: { order: Order; money: (value: number) => string }) {
  const inclusive = order.prices_include_tax;
  return (
    <>
      <TotalRow label="Subtotal" value={money(order.subtotal)} />
      {order.discounts.map((discount) => (
        <TotalRow
          key={discount.promotion_id}
          label={`Discount ${promotionName(discount)}`}
          value={`−${money(discount.amount)}`}
        />
      ))}
      {order.discount_total !== 0 && order.discounts.length === 0 && (
        <TotalRow label="Discount" value={`−${money(order.discount_total)}`} />
      )}
      <TotalRow label="Shipping" value={money(order.shipping_total)} />
      <TotalRow
        label={inclusive ? 'Tax (included in the prices)' : 'Tax'}
        value={inclusive ? `incl. ${money(order.tax_total)}` : money(order.tax_total)}
      />
      <TotalRow label="Total" value={money(order.total)} strong />
      {order.gift_cards.map((card) => (
        <TotalRow key={card.id} label={`Gift card …${card.code_last4}`} value={`−${money(card.amount)}`} />
      ))}
      <TotalRow label="Amount due" value={money(order.amount_due)} strong />
    </>
  );
}

/** Every tax line of the order: each item's, then the shipping's. */
function TaxLines({ order, money }: { order: Order; money: (value: number) => string }) {
  const rows: { key: string; of: string; line: TaxLine }[] = [
    ...order.items.flatMap((item) =>
      item.tax_lines.map((line, index) => ({
        key: `item-${item.id}-${index}`,
        of: item.variant_title === null ? item.product_name : `${item.product_name} (${item.variant_title})`,
        line,
      })),
    ),
    ...order.shipping_tax_lines.map((line, index) => ({ key: `shipping-${index}`, of: 'Shipping', line })),
  ];
  if (rows.length === 0) return <p>No tax applies to this order.</p>;
  return (
    <DataTable
      caption={
        order.prices_include_tax ? 'Tax lines (included in the prices)' : 'Tax lines (added to the prices)'
      }
      columns={['Line', 'Tax', 'Code', ['Rate', 'number'], ['Amount', 'number']]}
    >
      {rows.map(({ key, of, line }) => (
        <tr key={key}>
          <th scope="row">{of}</th>
          <td>{line.name}</td>
          <td>{line.code}</td>
          <td className="number">{formatRate(line.rate)}</td>
          <td className="number">{money(line.amount)}</td>
        </tr>
      ))}
    </DataTable>
  );
}

/** Each line's share of each promotion, then the shipping's: what a refund of a unit gives back comes from these. */
function DiscountLines({ order, money }: { order: Order; money: (value: number) => string }) {
  const rows: { key: string; of: string; adjustment: Adjustment }[] = [
    ...order.items.flatMap((item) =>
      item.adjustments.map((adjustment, index) => ({
        key: `item-${item.id}-${index}`,
        of: item.variant_title === null ? item.product_name : `${item.product_name} (${item.variant_title})`,
        adjustment,
      })),
    ),
    ...order.shipping_adjustments.map((adjustment, index) => ({
      key: `shipping-${index}`,
      of: 'Shipping',
      adjustment,
    })),
  ];
  if (rows.length === 0) return <p>No discount applies to this order.</p>;
  return (
    <DataTable caption="Discounts per line" columns={['Line', 'Promotion', ['Amount', 'number']]}>
      {rows.map(({ key, of, adjustment }) => (
        <tr key={key}>
          <th scope="row">{of}</th>
          <td>{promotionName({ code: adjustment.code, description: adjustment.description })}</td>
          <td className="number">−{money(adjustment.amount)}</td>
        </tr>
      ))}
    </DataTable>
  );
}

/** Why a payment needed staff (the payment's `flag`). */
const FLAG_MEANINGS: Record<string, string> = {
  amount_mismatch:
    'The provider took another amount than the order: not marked paid; check it with the provider',
  paid_after_cancel: 'Money was taken after the order was cancelled; the service refunds it (see Refunds)',
};
/**
 * The status changes the order lifecycle offers from where the order is (docs/api.md, Lifecycle); whether one is
 * allowed right now (a paid order is refunded before it is cancelled, …) is the API's answer.
 */
function changesFor(status: string): { label: string; body: StatusChange }[] {
  switch (status) {
    case 'pending':
      return [
        { label: 'Mark as paid', body: { status: 'paid', payment_status: 'paid' } },
        { label: 'Cancel', body: { status: 'cancelled' } },
      ];
    case 'paid':
      return [
        { label: 'Ship', body: { status: 'shipped' } },
        { label: 'Cancel', body: { status: 'cancelled' } },
      ];
    case 'shipped':
      return [{ label: 'Complete', body: { status: 'completed' } }];
    default:
      return [];
  }
}

export function OrderPage({ id }: { id: number }) {
  const { socket } = useLive();
  const path = { params: { path: { id } } };
  const order = useLoad(() => client.data(client.api.GET('/orders/{id}', path)), [id]);
  const payments = useLoad(() => client.data(client.api.GET('/orders/{id}/payments', path)), [id]);
  const refunds = useLoad(() => client.data(client.api.GET('/admin/orders/{id}/refunds', path)), [id]);
  const change = useAction();
  const refund = useAction();
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  // Bumped whenever the order changes here or elsewhere: the timeline reads itself again.
  const [version, setVersion] = useState(0);

  const reloadAll = () => {
    void order.reload();
    void payments.reload();
    void refunds.reload();
    setVersion((current) => current + 1);
  };

  // Someone else (the customer, another admin, a payment) may change the order while it is open here.
  const reloadLatest = useRef(reloadAll);
  reloadLatest.current = reloadAll;
  useEffect(() => {
    if (socket === null) return;
    return socket.on('order.updated', (frame) => {
      if (frame.data.id === id) reloadLatest.current();
    });
  }, [socket, id]);

  const setStatus = (label: string, body: StatusChange) =>
    void change
      .run(() => client.data(client.api.PATCH('/orders/{id}/status', { ...path, body })), `${label}: done.`)
      .then((ok) => ok && reloadAll());

  const submitRefund = (event: FormEvent) => {
    event.preventDefault();
    const body = {
      ...(amount.trim() !== '' && { amount: Number(amount) }),
      ...(reason.trim() !== '' && { reason: reason.trim() }),
    };
    void refund
      .run(async () => {
        const made = await client.data(client.api.POST('/admin/orders/{id}/refunds', { ...path, body }));
        return made;
      }, 'Refund recorded.')
      .then((ok) => {
        if (!ok) return;
        setAmount('');
        setReason('');
        reloadAll();
      });
  };

  const data = order.data;
  const owner = data?.user as { id: number; username: string; email: string } | null | undefined;
  const address = data?.shipping_address_details as Record<string, string> | null | undefined;
  // Every amount of an order is in the order's own currency, whatever the shop's default is.
  const currency = data?.currency_code ?? null;
  const money = (value: number) => formatMoney(value, currency);

  return (
    <Page title={data !== null ? `Order ${data.order_number}` : 'Order'}>
      <p>
        <Link to="/orders">Back to the order list</Link>
      </p>
      <Alert message={order.error} />
      {data !== null && (
        <>
          <dl className="facts">
            <dt>Status</dt>
            <dd>
              <span className={`badge badge-${data.status}`}>{humanize(data.status)}</span>
            </dd>
            <dt>Payment</dt>
            <dd>
              <span className={`badge badge-${data.payment_status}`}>{humanize(data.payment_status)}</span> (
              {humanize(data.payment_method)})
            </dd>
            <dt>Currency</dt>
            <dd>
              {currency?.toUpperCase()} (prices {data.prices_include_tax ? 'include' : 'exclude'} tax)
            </dd>
            <dt>Placed</dt>
            <dd>{formatDateTime(data.created_at)}</dd>
            <dt>Customer</dt>
            <dd>{owner != null ? `${owner.username} (${owner.email})` : `${data.email ?? ''} (guest)`}</dd>
            <dt>Shipping address</dt>
            <dd>
              {address != null ? (
                <address>
                  {[
                    address.name,
                    address.line1,
                    address.line2,
                    [address.postal_code, address.city].join(' '),
                    address.region,
                    address.country,
                    address.phone,
                  ]
                    .filter((line) => line !== undefined && line.trim() !== '')
                    .map((line, index) => (
                      <span key={index} className="line">
                        {line}
                      </span>
                    ))}
                </address>
              ) : (
                data.shipping_address
              )}
            </dd>
          </dl>

          <section aria-labelledby="status-heading">
            <h2 id="status-heading">Status</h2>
            <div className="actions">
              {changesFor(data.status).map(({ label, body }) => (
                <button
                  key={label}
                  type="button"
                  disabled={change.busy}
                  onClick={() => setStatus(label, body)}
                >
                  {label}
                </button>
              ))}
              {changesFor(data.status).length === 0 && (
                <p>No further status change for a {data.status} order.</p>
              )}
            </div>
            <Alert message={change.error} />
            <Status message={change.status} />
          </section>

          <section aria-labelledby="items-heading">
            <h2 id="items-heading">Items</h2>
            <DataTable
              caption={`Items, in ${currency?.toUpperCase() ?? ''}`}
              columns={[
                'Product',
                'SKU',
                ['Quantity', 'number'],
                ['Unit price', 'number'],
                ['Line total', 'number'],
                ['Discount', 'number'],
                [data.prices_include_tax ? 'Tax (incl.)' : 'Tax', 'number'],
                ['Total', 'number'],
              ]}
              footer={<Totals order={data} money={money} />}
            >
              {data.items.map((item) => (
                <tr key={item.id}>
                  <th scope="row">
                    <Link to={`/products/${item.product_id}`}>{item.product_name}</Link>
                    {item.variant_title !== null && <span className="sub"> {item.variant_title}</span>}
                  </th>
                  <td>{item.sku ?? ''}</td>
                  <td className="number">{item.quantity}</td>
                  <td className="number">{money(item.price)}</td>
                  <td className="number">{money(item.line_total)}</td>
                  <td className="number">
                    {item.discount_total === 0 ? '' : `−${money(item.discount_total)}`}
                  </td>
                  <td className="number">{money(item.tax_total)}</td>
                  <td className="number">{money(item.total)}</td>
                </tr>
              ))}
            </DataTable>
          </section>

          <OrderFulfilments order={data} onChange={reloadAll} />
          <OrderReturns order={data} onChange={reloadAll} />

          <section aria-labelledby="discounts-heading">
            <h2 id="discounts-heading">Discounts</h2>
            <DiscountLines order={data} money={money} />
          </section>

          <section aria-labelledby="taxes-heading">
            <h2 id="taxes-heading">Taxes</h2>
            <TaxLines order={data} money={money} />
          </section>
        </>
      )}

      <section aria-labelledby="payments-heading">
        <h2 id="payments-heading">Payments</h2>
        <Alert message={payments.error} />
        {payments.data !== null &&
          (payments.data.length === 0 ? (
            <p>No payment has been started for this order.</p>
          ) : (
            <DataTable
              columns={['Payment', 'Provider', 'Status', ['Amount', 'number'], 'Created', 'Updated']}
            >
              {payments.data.map((payment) => (
                <tr key={payment.id}>
                  <th scope="row">#{payment.id}</th>
                  <td>{payment.provider}</td>
                  <td>
                    {humanize(payment.status)}
                    {payment.flag !== null && (
                      <>
                        {' '}
                        <span
                          className="badge badge-failed"
                          title={FLAG_MEANINGS[payment.flag] ?? payment.flag}
                        >
                          {humanize(payment.flag)}
                        </span>
                      </>
                    )}
                  </td>
                  <td className="number">{formatMoney(payment.amount, payment.currency)}</td>
                  <td>{formatDateTime(payment.created_at)}</td>
                  <td>{formatDateTime(payment.updated_at)}</td>
                </tr>
              ))}
            </DataTable>
          ))}
      </section>

      <section aria-labelledby="refunds-heading">
        <h2 id="refunds-heading">Refunds</h2>
        <Alert message={refunds.error} />
        {refunds.data !== null && refunds.data.length > 0 && (
          <DataTable columns={['Refund', ['Amount', 'number'], 'Status', 'Reason', 'Created']}>
            {refunds.data.map((made) => (
              <tr key={made.id}>
                <th scope="row">#{made.id}</th>
                <td className="number">{money(made.amount)}</td>
                <td>{humanize(made.status)}</td>
                <td>{made.reason}</td>
                <td>{formatDateTime(made.created_at)}</td>
              </tr>
            ))}
          </DataTable>
        )}
        <form className="inline-form" onSubmit={submitRefund} noValidate>
          <TextField
            label="Refund amount"
            type="number"
            inputMode="decimal"
            min={amountStep(currency)}
            step={amountStep(currency)}
            hint="Leave empty to refund everything paid and not yet refunded."
            value={amount}
            error={refund.fields.amount}
            onChange={(event) => setAmount(event.target.value)}
          />
          <TextField
            label="Reason"
            value={reason}
            maxLength={255}
            error={refund.fields.reason}
            onChange={(event) => setReason(event.target.value)}
          />
          <button type="submit" disabled={refund.busy}>
            Refund
          </button>
        </form>
        <Alert message={refund.error} />
        <Status message={refund.status} />
      </section>

      <OrderNotes orderId={id} onAdded={() => setVersion((current) => current + 1)} />
      <OrderTimeline orderId={id} currency={currency} version={version} />
    </Page>
  );
}

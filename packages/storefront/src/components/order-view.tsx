import type { Schemas } from '@commerce/sdk';
import { date, money } from '@/lib/format';
import { Totals } from './cart-view';

type Order = Schemas['OrderDetailResponseDto'];

const STATUS: Record<string, string> = {
  pending: 'Awaiting payment',
  paid: 'Paid',
  shipped: 'Shipped',
  completed: 'Completed',
  cancelled: 'Cancelled',
};

/** An order's number, state, lines and totals (the confirmation and the account's order page). */
export function OrderView({ order }: { order: Order }) {
  const m = (amount: number) => money(amount, order.currency_code);
  return (
    <>
      <dl className="facts">
        <dt>Order number</dt>
        <dd className="order-number">{order.order_number}</dd>
        <dt>Placed</dt>
        <dd>{date(order.created_at)} UTC</dd>
        <dt>Status</dt>
        <dd>{STATUS[order.status] ?? order.status}</dd>
        <dt>Payment</dt>
        <dd>
          {order.payment_method.replaceAll('_', ' ')}, {order.payment_status.replaceAll('_', ' ')}
        </dd>
        {order.email !== null && (
          <>
            <dt>E-mail</dt>
            <dd>{order.email}</dd>
          </>
        )}
        <dt>Ship to</dt>
        <dd>{order.shipping_address}</dd>
      </dl>
      <table className="lines">
        <caption className="visually-hidden">Items of order {order.order_number}</caption>
        <thead>
          <tr>
            <th scope="col">Product</th>
            <th scope="col">Price</th>
            <th scope="col">Quantity</th>
          </tr>
        </thead>
        <tbody>
          {order.items.map((item) => (
            <tr key={item.id}>
              <th scope="row">
                {item.product_name}
                {item.variant_title !== null && ` (${item.variant_title})`}
              </th>
              <td>{m(item.price)}</td>
              <td>{item.quantity}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <Totals cart={order} />
    </>
  );
}

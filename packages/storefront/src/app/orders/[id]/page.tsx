import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { OrderView } from '@/components/order-view';
import { PayOrder } from '@/components/pay-order';
import { serverClient, unless } from '@/lib/api-server';

export const metadata: Metadata = { title: 'Your order' };

/**
 * The payment link of an order staff prepared (a draft order's e-mail, `MAIL_LINK_BASE_URL/orders/{id}?token=…`):
 * the order read and paid with the link's token, without signing in.
 */
export default async function PaymentLink({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<{ token?: string | string[] }>;
}) {
  const id = Number((await params).id);
  const { token } = await searchParams;
  if (!Number.isInteger(id) || id < 1 || typeof token !== 'string' || token === '') notFound();
  const client = await serverClient();
  const order = await unless(
    [400, 401, 404],
    client.data(
      client.api.GET('/orders/{id}', { params: { path: { id }, header: { 'X-Order-Token': token } } }),
    ),
  );
  if (order === null) notFound();
  const payable = order.status === 'pending' && order.payment_status === 'pending';
  return (
    <>
      <h1>Order {order.order_number}</h1>
      <OrderView order={order} />
      {payable && <PayOrder orderId={order.id} token={token} method={order.payment_method} />}
      <p>
        <Link href="/">Continue shopping</Link>
      </p>
    </>
  );
}

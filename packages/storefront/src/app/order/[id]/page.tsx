import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { OrderView } from '@/components/order-view';
import { serverClient, unless } from '@/lib/api-server';

export const metadata: Metadata = { title: 'Order confirmation' };

/** The confirmation after checkout: read with the browser's cookies (the guest order's, or the session's). */
export default async function OrderConfirmation({ params }: { params: Promise<{ id: string }> }) {
  const id = Number((await params).id);
  if (!Number.isInteger(id) || id < 1) notFound();
  const client = await serverClient();
  const order = await unless(
    [400, 401, 404],
    client.data(client.api.GET('/orders/{id}', { params: { path: { id } } })),
  );
  if (order === null) notFound();
  return (
    <>
      <h1>Thank you for your order</h1>
      <p>
        Your order number is <strong>{order.order_number}</strong>. A confirmation goes to your e-mail
        address.
      </p>
      <OrderView order={order} />
      <p>
        <Link href="/">Continue shopping</Link>
      </p>
    </>
  );
}

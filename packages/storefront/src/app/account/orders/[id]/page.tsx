import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { SignInRequired } from '@/components/account-forms';
import { AccountNav } from '@/components/account-nav';
import { OrderView } from '@/components/order-view';
import { serverClient } from '@/lib/api-server';
import { currentUser } from '@/lib/account';
import { unless } from '@/lib/api-server';

export const metadata: Metadata = { title: 'Order' };

export default async function AccountOrderPage({ params }: { params: Promise<{ id: string }> }) {
  const id = Number((await params).id);
  if (!Number.isInteger(id) || id < 1) notFound();
  if ((await currentUser()) === null) {
    return (
      <>
        <h1>Order</h1>
        <SignInRequired />
      </>
    );
  }
  const client = await serverClient();
  const order = await unless(
    [404],
    client.data(client.api.GET('/orders/{id}', { params: { path: { id } } })),
  );
  if (order === null) notFound();
  return (
    <>
      <h1>Order {order.order_number}</h1>
      <AccountNav />
      <OrderView order={order} />
    </>
  );
}

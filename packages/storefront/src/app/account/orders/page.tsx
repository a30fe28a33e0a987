import type { Metadata } from 'next';
import Link from 'next/link';
import { SignInRequired } from '@/components/account-forms';
import { AccountNav } from '@/components/account-nav';
import { Pager } from '@/components/pager';
import { serverClient, unless } from '@/lib/api-server';
import { date, money } from '@/lib/format';
import { numberParam, type SearchParams } from '@/lib/search-params';

export const metadata: Metadata = { title: 'Orders' };

export default async function OrdersPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const page = Math.max(1, Math.floor(numberParam(params.page) ?? 1));
  const client = await serverClient();
  const orders = await unless(
    [401],
    client.page(client.api.GET('/orders', { params: { query: { page, page_size: 20 } } })),
  );
  return (
    <>
      <h1>Orders</h1>
      {orders === null ? (
        <SignInRequired />
      ) : (
        <>
          <AccountNav />
          {orders.data.length === 0 ? (
            <p>No orders yet.</p>
          ) : (
            <table className="lines">
              <thead>
                <tr>
                  <th scope="col">Order</th>
                  <th scope="col">Placed</th>
                  <th scope="col">Status</th>
                  <th scope="col">Total</th>
                </tr>
              </thead>
              <tbody>
                {orders.data.map((order) => (
                  <tr key={order.id}>
                    <th scope="row">
                      <Link href={`/account/orders/${order.id}`}>{order.order_number}</Link>
                    </th>
                    <td>{date(order.created_at)}</td>
                    <td>{order.status}</td>
                    <td>{money(order.total, order.currency_code)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <Pager path="/account/orders" params={params} page={page} totalPages={orders.meta.total_page} />
        </>
      )}
    </>
  );
}

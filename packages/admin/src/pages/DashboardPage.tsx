import { useEffect } from 'react';
import { client, readAll } from '../client';
import { useCurrency } from '../currency';
import { formatMoney, localToday, startOfLocalDay } from '../format';
import { useLive } from '../live';
import { Link } from '../router';
import { Alert, Page, DataTable, useLoad } from '../ui';
import { totalsByCurrency } from '../orders';
import { OrdersTable } from './OrdersPage';

const TAKEN = new Set(['paid', 'partially_refunded']);
/** The dashboard lists active products with at most this many in stock (none left included). */
const LOW_STOCK = 5;

/** Today's orders (since local midnight), every page of them, and the revenue of those whose money came in. */
async function today() {
  const created_from = startOfLocalDay(localToday());
  const orders = await readAll((page) =>
    client.page(
      client.api.GET('/admin/orders', { params: { query: { created_from, page, page_size: 100 } } }),
    ),
  );
  return {
    count: orders.length,
    revenue: totalsByCurrency(orders.filter((order) => TAKEN.has(order.payment_status))),
  };
}

export function DashboardPage() {
  const currency = useCurrency();
  const { socket } = useLive();
  const todays = useLoad(today, []);
  const awaiting = useLoad(
    () =>
      client.page(
        client.api.GET('/admin/orders', {
          params: { query: { status: 'pending', sort: 'created_at', page_size: 10 } },
        }),
      ),
    [],
  );
  // The API sorts products by name, price, date or id, not by stock: by name here, each row showing its stock.
  const lowStock = useLoad(
    () =>
      client.page(
        client.api.GET('/products', {
          params: { query: { max_stock: LOW_STOCK, is_active: true, sort: 'name', page_size: 10 } },
        }),
      ),
    [],
  );

  // New orders and payments change every figure here, and orders take or give back stock: read them again.
  useEffect(() => {
    if (socket === null) return;
    const refresh = () => {
      void todays.reload();
      void awaiting.reload();
      void lowStock.reload();
    };
    const offs = [socket.on('order.created', refresh), socket.on('order.updated', refresh)];
    return () => offs.forEach((off) => off());
  }, [socket, todays.reload, awaiting.reload, lowStock.reload]);

  return (
    <Page title="Dashboard">
      <section aria-labelledby="today-heading" className="cards">
        <h2 id="today-heading" className="visually-hidden">
          Today
        </h2>
        <div className="card">
          <h3>Orders today</h3>
          <p className="figure">{todays.data?.count ?? '…'}</p>
        </div>
        <div className="card">
          <h3>Revenue today</h3>
          <p className="figure">
            {todays.data === null
              ? '…'
              : todays.data.revenue.length === 0
                ? formatMoney(0, currency)
                : todays.data.revenue.map(({ currency: code, amount }) => (
                    <span key={code} className="line">
                      {formatMoney(amount, code)}
                    </span>
                  ))}
          </p>
          <p className="hint">
            Orders placed today whose payment came in (paid or partially refunded), per currency.
          </p>
        </div>
        <div className="card">
          <h3>Awaiting payment</h3>
          <p className="figure">{awaiting.data?.meta.total ?? '…'}</p>
        </div>
      </section>
      <Alert message={todays.error} />

      <section aria-labelledby="awaiting-heading">
        <h2 id="awaiting-heading">Orders awaiting payment</h2>
        <Alert message={awaiting.error} />
        {awaiting.data !== null &&
          (awaiting.data.data.length === 0 ? (
            <p>No order is waiting for its payment.</p>
          ) : (
            <>
              <OrdersTable orders={awaiting.data.data} caption="Pending orders, oldest first" />
              <p>
                <Link to="/orders?status=pending&sort=created_at">
                  See all {awaiting.data.meta.total} awaiting payment
                </Link>
              </p>
            </>
          ))}
      </section>

      <section aria-labelledby="stock-heading">
        <h2 id="stock-heading">Low stock ({LOW_STOCK} or fewer)</h2>
        <p className="hint">
          Active products with {LOW_STOCK} or fewer in stock, none left included, by name.
        </p>
        <Alert message={lowStock.error} />
        {lowStock.data !== null &&
          (lowStock.data.data.length === 0 ? (
            <p>Every active product has more than {LOW_STOCK} in stock.</p>
          ) : (
            <DataTable
              caption={`${LOW_STOCK} or fewer in stock (${lowStock.data.meta.total})`}
              columns={['Product', ['Stock', 'number']]}
            >
              {lowStock.data.data.map((product) => (
                <tr key={product.id}>
                  <th scope="row">
                    <Link to={`/products/${product.id}`}>{product.name}</Link>
                  </th>
                  <td className="number">{product.stock}</td>
                </tr>
              ))}
            </DataTable>
          ))}
      </section>
    </Page>
  );
}

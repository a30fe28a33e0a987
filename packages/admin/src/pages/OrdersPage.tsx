import { useEffect, useRef, useState } from 'react';
import { client } from '../client';
import { formatDateTime, formatMoney, humanize } from '../format';
import { useLive } from '../live';
import { listQuery } from '../routes';
import {
  applyLiveOrder,
  filtersFromSearch,
  orderQuery,
  ORDER_SORTS,
  ORDER_STATUSES,
  PAYMENT_STATUSES,
  type AdminOrder,
  type OrderFilters,
  type OrderSort,
} from '../orders';
import { Link, navigate, useLocation } from '../router';
import {
  Alert,
  Filters,
  Page,
  Pagination,
  SearchField,
  SelectField,
  Status,
  DataTable,
  TextField,
  useLoad,
} from '../ui';

const PAGE_SIZE = 20;
const sortLabels: Record<OrderSort, string> = {
  '-created_at': 'Newest first',
  created_at: 'Oldest first',
  '-total_amount': 'Highest total',
  total_amount: 'Lowest total',
};

function searchOf(filters: OrderFilters, sort: OrderSort, page: number): string {
  return listQuery({ ...filters, sort: sort === '-created_at' ? '' : sort, page });
}

export function OrdersTable({ orders, caption }: { orders: AdminOrder[]; caption: string }) {
  return (
    <DataTable
      caption={caption}
      columns={['Order', 'Placed', 'Customer', 'Status', 'Payment', ['Total', 'number']]}
    >
      {orders.map((order) => {
        const owner = order.user as { username: string; email: string } | null;
        return (
          <tr key={order.id}>
            <th scope="row" className="nowrap">
              <Link to={`/orders/${order.id}`}>{order.order_number}</Link>
            </th>
            <td className="nowrap">{formatDateTime(order.created_at)}</td>
            <td>{owner !== null ? `${owner.username} (${owner.email})` : `${order.email ?? ''} (guest)`}</td>
            <td>
              <span className={`badge badge-${order.status}`}>{humanize(order.status)}</span>
            </td>
            <td>
              <span className={`badge badge-${order.payment_status}`}>{humanize(order.payment_status)}</span>
            </td>
            {/* Each order in its own currency (its region's), not the shop's default. */}
            <td className="number">{formatMoney(order.total, order.currency_code)}</td>
          </tr>
        );
      })}
    </DataTable>
  );
}

export function OrdersPage() {
  const location = useLocation();
  const filters = filtersFromSearch(location.search);
  const sortParam = location.search.get('sort') as OrderSort | null;
  const sort: OrderSort = sortParam !== null && ORDER_SORTS.includes(sortParam) ? sortParam : '-created_at';
  const page = Math.max(1, Number.parseInt(location.search.get('page') ?? '1', 10) || 1);
  const [news, setNews] = useState('');
  const { socket, status: liveStatus } = useLive();
  const query = {
    ...orderQuery(filters),
    ...(sort !== '-created_at' && { sort }),
    page,
    page_size: PAGE_SIZE,
  };
  const key = JSON.stringify(query);

  const list = useLoad(() => client.page(client.api.GET('/admin/orders', { params: { query } })), [key]);

  const update = (changes: Partial<OrderFilters>, next: { sort?: OrderSort; page?: number } = {}) =>
    navigate(`/orders${searchOf({ ...filters, ...changes }, next.sort ?? sort, next.page ?? 1)}`, {
      replace: true,
    });

  // Live updates from the `orders` channel.
  const latest = useRef({ list, filters, page, sort });
  latest.current = { list, filters, page, sort };
  useEffect(() => {
    if (socket === null) return;
    const apply = (order: AdminOrder, created: boolean) => {
      const { list: current, filters: shown, page: at, sort: order_ } = latest.current;
      if (created) setNews(`New order ${order.order_number} received.`);
      if (current.data === null) return;
      const applied = applyLiveOrder(
        { rows: current.data.data, page: at, sort: order_, pageSize: PAGE_SIZE },
        order,
        created,
        shown,
      );
      if (applied === null) return void current.reload();
      const meta = current.data.meta;
      const total = meta.total + applied.totalChange;
      current.setData({
        data: applied.rows,
        // The page count follows the total: a first order in an empty list makes page 1 of 1.
        meta: { ...meta, total, total_page: Math.ceil(total / (meta.page_size ?? PAGE_SIZE)) },
      });
    };
    const offCreated = socket.on('order.created', (frame) => apply(frame.data as AdminOrder, true));
    const offUpdated = socket.on('order.updated', (frame) => apply(frame.data as AdminOrder, false));
    return () => {
      offCreated();
      offUpdated();
    };
  }, [socket]);

  return (
    <Page title="Orders">
      <Filters label="Order filters">
        <SelectField
          label="Order status"
          value={filters.status}
          onChange={(event) => update({ status: event.target.value as OrderFilters['status'] })}
          empty="Any"
          options={ORDER_STATUSES.map((value) => ({ value, label: humanize(value) }))}
        />
        <SelectField
          label="Payment status"
          value={filters.payment_status}
          onChange={(event) =>
            update({ payment_status: event.target.value as OrderFilters['payment_status'] })
          }

          empty="Any"
          options={PAYMENT_STATUSES.map((value) => ({ value, label: humanize(value) }))}
        />
        <SearchField
          label="Search"
          hint="Order number, username or email"
          initial={filters.search}
          onSearch={(text) => update({ search: text })}
        />
        <TextField
          label="From"
          type="date"
          value={filters.from}
          onChange={(event) => update({ from: event.target.value })}
        />
        <TextField
          label="To"
          type="date"
          value={filters.to}
          onChange={(event) => update({ to: event.target.value })}
        />
        <SelectField
          label="Sort"
          value={sort}
          onChange={(event) => update({}, { sort: event.target.value as OrderSort })}

          options={ORDER_SORTS.map((value) => ({ value, label: sortLabels[value] }))}
        />
      </Filters>
      <p className="live">
        Live updates: {liveStatus === 'open' ? 'on' : liveStatus === 'connecting' ? 'connecting…' : 'off'}
      </p>
      <Status message={news} />
      <Alert message={list.error} />
      {list.data !== null && (
        <>
          {list.data.data.length === 0 ? (
            <p>No orders match these filters.</p>
          ) : (
            <OrdersTable orders={list.data.data} caption="Orders" />
          )}
          <Pagination meta={list.data.meta} onPage={(to) => update({}, { page: to })} />
        </>
      )}
    </Page>
  );
}

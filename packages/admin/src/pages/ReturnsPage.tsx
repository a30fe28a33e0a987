import type { Schemas } from '@commerce/sdk';
import { client } from '../client';
import { formatDateTime, formatMoney, humanize } from '../format';
import { Link, navigate, useLocation } from '../router';
import { listQuery } from '../routes';
import { Alert, DataTable, Filters, Page, Pagination, SelectField, useLoad } from '../ui';

type ReturnStatus = Schemas['ReturnResponseDto']['status'];

const PAGE_SIZE = 20;
const STATUSES: readonly ReturnStatus[] = ['requested', 'received', 'rejected'];

/** Every return, newest first, by status; each links to its order, where staff receive or reject it. */
export function ReturnsPage() {
  const location = useLocation();
  const statusParam = location.search.get('status') as ReturnStatus | null;
  const status = statusParam !== null && STATUSES.includes(statusParam) ? statusParam : '';
  const page = Math.max(1, Number.parseInt(location.search.get('page') ?? '1', 10) || 1);
  const query = { ...(status !== '' && { status }), page, page_size: PAGE_SIZE };
  const list = useLoad(
    () => client.page(client.api.GET('/admin/returns', { params: { query } })),
    [status, page],
  );
  const go = (next: { status?: string; page?: number }) =>
    navigate(`/returns${listQuery({ status: next.status ?? status, page: next.page ?? 1 })}`, {
      replace: true,
    });

  return (
    <Page title="Returns">
      <Filters label="Filter returns">
        <SelectField
          label="Status"
          empty="Any status"
          options={STATUSES.map((value) => ({ value, label: humanize(value) }))}
          value={status}
          onChange={(event) => go({ status: event.target.value })}
        />
      </Filters>
      <Alert message={list.error} />
      {list.data !== null &&
        (list.data.data.length === 0 ? (
          <p>No return matches.</p>
        ) : (
          <>
            <DataTable
              columns={['Return', 'Order', 'Status', ['Refund', 'number'], 'Refund status', 'Requested']}
            >
              {list.data.data.map((ret) => (
                <tr key={ret.id}>
                  <th scope="row">#{ret.id}</th>
                  <td>
                    <Link to={`/orders/${ret.order_id}`}>Order #{ret.order_id}</Link>
                  </td>
                  <td>
                    <span className={`badge badge-${ret.status}`}>{humanize(ret.status)}</span>
                  </td>
                  <td className="number">{formatMoney(ret.refund_amount, ret.currency_code)}</td>
                  <td>{ret.refund_status === null ? '' : humanize(ret.refund_status)}</td>
                  <td>{formatDateTime(ret.created_at)}</td>
                </tr>
              ))}
            </DataTable>
            <Pagination meta={list.data.meta} onPage={(next) => go({ page: next })} />
          </>
        ))}
    </Page>
  );
}

import type { Schemas } from '@commerce/sdk';
import { client, loadCategories } from '../client';
import { useCurrency } from '../currency';
import { formatMoney, formatTotal } from '../format';
import { ProductFacets } from '../product-facets';
import { facetFiltersFromSearch, facetQuery, facetSearchValues, type FacetFilters } from '../product-filters';
import { Link, navigate, useLocation } from '../router';
import { listQuery } from '../routes';
import {
  ActiveCells,
  Alert,
  DataTable,
  Filters,
  Page,
  Pagination,
  SearchField,
  SelectField,
  Status,
  useAction,
  useLoad,
} from '../ui';

type Product = Schemas['ProductResponseDto'];
const PAGE_SIZE = 20;
const activity = [
  { value: 'true', label: 'Active' },
  { value: 'false', label: 'Inactive' },
];

export function ProductsPage() {
  const currency = useCurrency();
  const location = useLocation();
  const search = location.search.get('search') ?? '';
  const active = location.search.get('active') ?? '';
  const page = Math.max(1, Number.parseInt(location.search.get('page') ?? '1', 10) || 1);
  const facets = facetFiltersFromSearch(location.search);
  const toggle = useAction();
  const query = {
    page,
    page_size: PAGE_SIZE,
    ...(search.trim() !== '' && { search: search.trim() }),
    ...((active === 'true' || active === 'false') && { is_active: active === 'true' }),
    ...facetQuery(facets),
  };
  const list = useLoad(
    () => client.page(client.api.GET('/products', { params: { query } })),
    [JSON.stringify(query)],
  );
  const categories = useLoad(loadCategories, []);
  const categoryName = (id: number) =>
    categories.data?.find((category) => category.id === id)?.name ?? `#${id}`;

  // Every change of a filter goes back to page 1.
  const go = (changes: { search?: string; active?: string; facets?: FacetFilters; page?: number }) => {
    const values = {
      search: changes.search ?? search,
      active: changes.active ?? active,
      ...facetSearchValues(changes.facets ?? facets),
      page: changes.page ?? 1,
    };
    navigate(`/products${listQuery(values)}`, { replace: true });
  };

  const setActive = (product: Product, isActive: boolean) =>
    void toggle
      .run(
        () =>
          client.data(
            client.api.PUT('/products/{id}', {
              params: { path: { id: product.id } },
              body: { is_active: isActive },
            }),
          ),
        `${product.name} ${isActive ? 'activated' : 'deactivated'}.`,
      )
      .then((ok) => {
        if (ok) void list.reload();
      });

  return (
    <Page
      title="Products"
      actions={
        <Link to="/products/new" className="button">
          New product
        </Link>
      }
    >
      <Filters label="Product filters">
        <SearchField
          label="Search"
          hint="Words of the name, description or SKU"
          initial={search}
          onSearch={(text) => go({ search: text })}
        />
        <SelectField
          label="Availability"
          value={active}
          empty="Active and inactive"
          options={activity}
          onChange={(event) => go({ active: event.target.value })}
        />
      </Filters>
      <Alert message={list.error ?? toggle.error} />
      <Status message={toggle.status} />
      <div className="with-facets">
        <ProductFacets
          facets={list.data?.meta.facets}
          exact={list.data?.meta.facets_exact}
          filters={facets}
          categoryName={categoryName}
          currency={currency}
          onChange={(changed) => go({ facets: changed })}
        />
        <div className="results">
          {list.data !== null && (
            <>
              {list.data.data.length === 0 ? (
                <p>No products found.</p>
              ) : (
                // A search's total stops at the API's limit (total_exact false): "10,000+ products".
                <DataTable
                  caption={`${formatTotal(list.data.meta)} ${list.data.meta.total === 1 ? 'product' : 'products'}`}
                  columns={['Name', 'Category', ['Price', 'number'], ['Stock', 'number'], 'State', 'Actions']}
                >
                  {list.data.data.map((product) => (
                    <tr key={product.id}>
                      <th scope="row">
                        <Link to={`/products/${product.id}`}>{product.name}</Link>
                      </th>
                      <td>{categoryName(product.category_id)}</td>
                      <td className="number">{formatMoney(product.price, currency)}</td>
                      <td className="number">{product.stock}</td>
                      <ActiveCells
                        active={product.is_active}
                        of={product.name}
                        busy={toggle.busy}
                        onToggle={(active) => setActive(product, active)}
                      />
                    </tr>
                  ))}
                </DataTable>
              )}
              <Pagination meta={list.data.meta} onPage={(to) => go({ page: to })} />
            </>
          )}
        </div>
      </div>
    </Page>
  );
}

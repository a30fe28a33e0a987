import type { Metadata } from 'next';
import Link from 'next/link';
import { Pager } from '@/components/pager';
import { ProductGrid } from '@/components/product-grid';
import { serverClient } from '@/lib/api-server';
import { money } from '@/lib/format';
import { currentRegion } from '@/lib/region';
import { all, first, numberParam, withParams, type SearchParams } from '@/lib/search-params';

export const metadata: Metadata = { title: 'Search' };

const OPTION_PARAM = /^option\[(.+)\]$/;

export default async function SearchPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const search = first(params.q)?.trim() ?? '';
  const categoryId = numberParam(params.category_id);
  const priceMin = numberParam(params.price_min);
  const priceMax = numberParam(params.price_max);
  const inStock = first(params.in_stock) === 'true';
  const page = Math.max(1, Math.floor(numberParam(params.page) ?? 1));
  const option: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(params)) {
    const optionName = OPTION_PARAM.exec(name)?.[1];
    if (optionName !== undefined) option[optionName] = all(value);
  }

  const client = await serverClient();
  const { region } = await currentRegion();
  const [result, categories] = await Promise.all([
    client.page(
      client.api.GET('/products', {
        params: {
          query: {
            search: search === '' ? undefined : search,
            category_id: categoryId,
            include_descendants: categoryId === undefined ? undefined : true,
            price_min: priceMin,
            price_max: priceMax,
            in_stock: inStock ? true : undefined,
            option: Object.keys(option).length === 0 ? undefined : option,
            facets: 'category_id,options,price',
            page,
            page_size: 24,
            region_id: region?.id,
          },
        },
      }),
    ),
    client.page(client.api.GET('/categories', { params: { query: { page_size: 100 } } })),
  ]);
  const facets = result.meta.facets ?? {};
  const categoryName = new Map(categories.data.map(({ id, name }) => [id, name]));
  // The facet buckets are in the default currency's unit: the one the price filter takes.
  const { currency } = await client.data(client.api.GET('/payment-methods'));

  return (
    <>
      <h1>{search === '' ? 'All products' : `Results for “${search}”`}</h1>
      <form role="search" action="/search" className="search-form">
        <label htmlFor="q">Search products</label>
        <input id="q" name="q" type="search" defaultValue={search} />
        <button type="submit">Search</button>
      </form>
      <div className="search-layout">
        <form action="/search" className="filters" aria-labelledby="filters-heading">
          <h2 id="filters-heading">Filters</h2>
          <input type="hidden" name="q" value={search} />
          {(facets.category_id?.length ?? 0) > 0 && (
            <fieldset>
              <legend>Category</legend>
              <label>
                <input type="radio" name="category_id" value="" defaultChecked={categoryId === undefined} />{' '}
                Any
              </label>
              {facets.category_id?.map(({ value, count }) => (
                <label key={value}>
                  <input
                    type="radio"
                    name="category_id"
                    value={value}
                    defaultChecked={categoryId === value}
                  />{' '}
                  {categoryName.get(value) ?? `Category ${value}`} ({count})
                </label>
              ))}
            </fieldset>
          )}
          {Object.entries(facets.options ?? {}).map(([name, values]) => (
            <fieldset key={name}>
              <legend>{name}</legend>
              {values.map(({ value, count }) => (
                <label key={value}>
                  <input
                    type="checkbox"
                    name={`option[${name}]`}
                    value={value}
                    defaultChecked={(option[name] ?? []).some(
                      (chosen) => chosen.toLowerCase() === value.toLowerCase(),
                    )}
                  />{' '}
                  {value} ({count})
                </label>
              ))}
            </fieldset>
          ))}
          <fieldset>
            <legend>Price ({currency.toUpperCase()})</legend>
            {(facets.price?.length ?? 0) > 0 && (
              <ul className="price-buckets">
                {facets.price?.map(({ min, max, count }) => (
                  <li key={min}>
                    <Link
                      href={withParams('/search', params, {
                        price_min: String(min),
                        // The bucket's upper edge is exclusive; the filter's is inclusive, to the cent.
                        price_max: max === null ? null : (max - 0.01).toFixed(2),
                        page: null,
                      })}
                    >
                      {max === null
                        ? `${money(min, currency)} and more`
                        : `${money(min, currency)} to ${money(max, currency)}`}{' '}
                      ({count})
                    </Link>
                  </li>
                ))}
              </ul>
            )}
            <label>
              Minimum price
              <input
                name="price_min"
                type="number"
                min="0"
                step="0.01"
                inputMode="decimal"
                defaultValue={priceMin}
              />
            </label>
            <label>
              Maximum price
              <input
                name="price_max"
                type="number"
                min="0"
                step="0.01"
                inputMode="decimal"
                defaultValue={priceMax}
              />
            </label>
          </fieldset>
          <label className="check">
            <input type="checkbox" name="in_stock" value="true" defaultChecked={inStock} /> In stock only
          </label>
          <button type="submit">Apply filters</button>
          <Link href={withParams('/search', {}, { q: search === '' ? null : search })}>Clear filters</Link>
        </form>
        <section aria-labelledby="results-heading" className="results">
          <h2 id="results-heading">
            {result.meta.total_exact === false ? `More than ${result.meta.total}` : result.meta.total}{' '}
            {result.meta.total === 1 ? 'product' : 'products'}
          </h2>
          <ProductGrid products={result.data} />
          <Pager path="/search" params={params} page={page} totalPages={result.meta.total_page} />
        </section>
      </div>
    </>
  );
}

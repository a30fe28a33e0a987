import type { Schemas } from '@commerce/sdk';

export type ProductFacets = Schemas['ProductFacetsDto'];
type PriceBucket = Schemas['PriceFacetBucketDto'];

/** The facets the product list asks the API to count beside its results. */
export const PRODUCT_FACETS = 'category_id,options,price';

/** A price range as the list filters by it: inclusive bounds in the default currency's unit, null for none. */
export interface PriceRange {
  min: number | null;
  max: number | null;
}

/** The product list's facet choices, kept in the page's URL under the API's own names. */
export interface FacetFilters {
  /** `category_id`: the products of exactly that category (as the category facet counts them). */
  categoryId: number | null;
  /** `option[Size]=M&option[Size]=L`: the values chosen per option name (any of them; every option named). */
  options: Record<string, string[]>;
  /** `price_min`, `price_max`. */
  price: PriceRange;
  /** `in_stock=true`. */
  inStock: boolean;
}

export const NO_FACET_FILTERS: FacetFilters = {
  categoryId: null,
  options: {},
  price: { min: null, max: null },
  inStock: false,
};

const ID = /^[1-9][0-9]{0,9}$/;
const AMOUNT = /^[0-9]{1,7}(\.[0-9]{1,2})?$/;
const OPTION_KEY = /^option\[(.+)\]$/s;

/** Whether two option values are one for the API: compared after NFKC, in lower case. */
export function sameOptionValue(a: string, b: string): boolean {
  return a.normalize('NFKC').toLowerCase() === b.normalize('NFKC').toLowerCase();
}

/** Values by option name, in an object without a prototype (an option may be named `__proto__`). */
function optionMap(): Record<string, string[]> {
  return Object.create(null) as Record<string, string[]>;
}

/** The facet choices of the page's URL query, ignoring values the API would not take. */
export function facetFiltersFromSearch(search: URLSearchParams): FacetFilters {
  const amount = (value: string | null) => (value !== null && AMOUNT.test(value) ? Number(value) : null);
  const options = optionMap();
  for (const [key, value] of search) {
    const name = OPTION_KEY.exec(key)?.[1];
    if (name === undefined || value.trim() === '') continue;
    const values = (options[name] ??= []);
    if (!values.some((chosen) => sameOptionValue(chosen, value))) values.push(value);
  }
  const category = search.get('category_id');
  return {
    categoryId: category !== null && ID.test(category) ? Number(category) : null,
    options,
    price: { min: amount(search.get('price_min')), max: amount(search.get('price_max')) },
    inStock: search.get('in_stock') === 'true',
  };
}

/** The facet choices as values of the page's URL query (for listQuery: empty ones are left out). */
export function facetSearchValues(filters: FacetFilters): Record<string, string | string[]> {
  const amount = (value: number | null) => (value === null ? '' : String(value));
  return {
    category_id: filters.categoryId === null ? '' : String(filters.categoryId),
    ...Object.fromEntries(
      Object.entries(filters.options).map(([name, values]) => [`option[${name}]`, values]),
    ),
    price_min: amount(filters.price.min),
    price_max: amount(filters.price.max),
    in_stock: filters.inStock ? 'true' : '',
  };
}

/** The query of `GET /products` for the facet choices, asking for the facets' counts. */
export function facetQuery(filters: FacetFilters) {
  return {
    facets: PRODUCT_FACETS,
    ...(filters.categoryId !== null && { category_id: filters.categoryId }),
    ...(Object.keys(filters.options).length > 0 && { option: filters.options }),
    ...(filters.price.min !== null && { price_min: filters.price.min }),
    ...(filters.price.max !== null && { price_max: filters.price.max }),
    ...(filters.inStock && { in_stock: true }),
  };
}

/** The choices with `value` of option `name` added, or taken out when it was chosen. */
export function toggleOptionValue(filters: FacetFilters, name: string, value: string): FacetFilters {
  const options = optionMap();
  Object.assign(options, filters.options);
  const chosen = options[name] ?? [];
  const next = chosen.some((one) => sameOptionValue(one, value))
    ? chosen.filter((one) => !sameOptionValue(one, value))
    : [...chosen, value];
  if (next.length === 0) delete options[name];
  else options[name] = next;
  return { ...filters, options };
}

/**
 * A price bucket of the facet as the range the list filters by. A bucket's `max` is exclusive and the filter's
 * inclusive; prices have at most 2 decimals, so the bucket 10–25 is the range 10 to 24.99.
 */
export function bucketRange(bucket: PriceBucket): PriceRange {
  return { min: bucket.min, max: bucket.max === null ? null : (Math.round(bucket.max * 100) - 1) / 100 };
}

export function sameRange(a: PriceRange, b: PriceRange): boolean {
  return a.min === b.min && a.max === b.max;
}

/** A choice of a facet: its value and the count the API gave (null: not counted). */
export interface FacetChoice<T> {
  value: T;
  count: number | null;
}

/**
 * A facet's choices: the API's values, then each chosen one it did not return (none of the matches has it, or it
 * is past the 20 values a facet lists), without a count, so that a choice can always be seen and undone.
 */
export function facetChoices<T>(
  counted: readonly { value: T; count: number }[] | undefined,
  chosen: readonly T[],
  same: (a: T, b: T) => boolean,
): FacetChoice<T>[] {
  const choices: FacetChoice<T>[] = (counted ?? []).map(({ value, count }) => ({ value, count }));
  for (const value of chosen) {
    if (!choices.some((choice) => same(choice.value, value))) choices.push({ value, count: null });
  }
  return choices;
}

/** The price facet's buckets as ranges, with the chosen range (a bucket with no match now, or typed in the URL). */
export function priceChoices(buckets: readonly PriceBucket[] | undefined, chosen: PriceRange) {
  const counted = (buckets ?? []).map((bucket) => ({ value: bucketRange(bucket), count: bucket.count }));
  const none = chosen.min === null && chosen.max === null;
  return facetChoices(counted, none ? [] : [chosen], sameRange).sort(
    (a, b) => (a.value.min ?? 0) - (b.value.min ?? 0),
  );
}

/**
 * The option names to show: the facet's (in its order: code points) and any chosen option it did not return.
 */
export function optionNames(facet: ProductFacets['options'], filters: FacetFilters): string[] {
  const names = Object.keys(facet ?? {});
  return [...names, ...Object.keys(filters.options).filter((name) => !names.includes(name))];
}

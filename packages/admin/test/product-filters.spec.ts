import { describe, expect, it } from '@jest/globals';
import {
  bucketRange,
  facetChoices,
  facetFiltersFromSearch,
  facetQuery,
  facetSearchValues,
  NO_FACET_FILTERS,
  optionNames,
  priceChoices,
  sameOptionValue,
  toggleOptionValue,
  type FacetFilters,
} from '../src/product-filters';
import { listQuery } from '../src/routes';

const chosen: FacetFilters = {
  categoryId: 4,
  options: { Size: ['M', 'L'], Colour: ['Red'] },
  price: { min: 10, max: 24.99 },
  inStock: true,
};

describe('the product list facet choices in the URL', () => {
  it("are kept under the API's names, an option's values repeating its key, and read back the same", () => {
    const query = listQuery({ search: 'tee', ...facetSearchValues(chosen), page: 1 });
    const search = new URLSearchParams(query);
    expect(search.get('category_id')).toBe('4');
    expect(search.getAll('option[Size]')).toEqual(['M', 'L']);
    expect(search.getAll('option[Colour]')).toEqual(['Red']);
    expect([search.get('price_min'), search.get('price_max'), search.get('in_stock')]).toEqual([
      '10',
      '24.99',
      'true',
    ]);
    expect(facetFiltersFromSearch(search)).toEqual(chosen);
  });

  it('leave nothing in the URL when none is chosen', () => {
    expect(listQuery({ search: 'tee', ...facetSearchValues(NO_FACET_FILTERS), page: 1 })).toBe('?search=tee');
    expect(facetFiltersFromSearch(new URLSearchParams(''))).toEqual(NO_FACET_FILTERS);
  });

  it('ignore what the API would not take: a category id that is no id, a price with 3 decimals, empty values', () => {
    const filters = facetFiltersFromSearch(
      new URLSearchParams(
        'category_id=0&price_min=1.005&price_max=abc&in_stock=yes&option[Size]=&option[]=M',
      ),
    );
    expect(filters).toEqual(NO_FACET_FILTERS);
    expect(facetFiltersFromSearch(new URLSearchParams('category_id=012')).categoryId).toBeNull();
  });

  it('keep one spelling of a value repeated in another case, as the API compares values (NFKC, lower case)', () => {
    const filters = facetFiltersFromSearch(
      new URLSearchParams('option[Colour]=Red&option[Colour]=RED&option[Colour]=ＲＥＤ'),
    );
    expect(filters.options).toEqual({ Colour: ['Red'] });
    expect(sameOptionValue('ＲＥＤ', 'red')).toBe(true);
    expect(sameOptionValue('Size', 'size')).toBe(true);
  });

  it('take an option named __proto__ as an option like any other', () => {
    const filters = facetFiltersFromSearch(new URLSearchParams('option[__proto__]=x'));
    expect(Object.keys(filters.options)).toEqual(['__proto__']);
    expect(filters.options.__proto__).toEqual(['x']);
  });
});

describe('facetQuery: the API query of the choices', () => {
  it('asks for the three facets and sends each choice under its API name', () => {
    expect(facetQuery(chosen)).toEqual({
      facets: 'category_id,options,price',
      category_id: 4,
      option: { Size: ['M', 'L'], Colour: ['Red'] },
      price_min: 10,
      price_max: 24.99,
      in_stock: true,
    });
    expect(facetQuery(NO_FACET_FILTERS)).toEqual({ facets: 'category_id,options,price' });
  });
});

describe('toggleOptionValue', () => {
  it('adds a value, takes it out again (any spelling), and drops the option with its last value', () => {
    const one = toggleOptionValue(NO_FACET_FILTERS, 'Size', 'M');
    expect(one.options).toEqual({ Size: ['M'] });
    const two = toggleOptionValue(one, 'Size', 'L');
    expect(two.options).toEqual({ Size: ['M', 'L'] });
    expect(toggleOptionValue(two, 'Size', 'm').options).toEqual({ Size: ['L'] });
    expect(toggleOptionValue(one, 'Size', 'M').options).toEqual({});
    // The choices it was given stay as they were.
    expect(one.options).toEqual({ Size: ['M'] });
    expect(NO_FACET_FILTERS.options).toEqual({});
  });
});

describe('price buckets as ranges', () => {
  it("a bucket's exclusive max is the cent below it as the list's inclusive price_max; the last bucket has none", () => {
    expect(bucketRange({ min: 10, max: 25, count: 3 })).toEqual({ min: 10, max: 24.99 });
    expect(bucketRange({ min: 0, max: 10, count: 1 })).toEqual({ min: 0, max: 9.99 });
    expect(bucketRange({ min: 250, max: 500, count: 1 })).toEqual({ min: 250, max: 499.99 });
    expect(bucketRange({ min: 1000, max: null, count: 1 })).toEqual({ min: 1000, max: null });
  });

  it('the chosen range is shown among the buckets, without a count when no bucket is it, in price order', () => {
    const buckets = [
      { min: 0, max: 10, count: 1 },
      { min: 50, max: 100, count: 2 },
    ];
    expect(priceChoices(buckets, { min: 0, max: 9.99 })).toEqual([
      { value: { min: 0, max: 9.99 }, count: 1 },
      { value: { min: 50, max: 99.99 }, count: 2 },
    ]);
    expect(priceChoices(buckets, { min: 10, max: 24.99 })).toEqual([
      { value: { min: 0, max: 9.99 }, count: 1 },
      { value: { min: 10, max: 24.99 }, count: null },
      { value: { min: 50, max: 99.99 }, count: 2 },
    ]);
    expect(priceChoices(undefined, { min: null, max: null })).toEqual([]);
  });
});

describe('facet choices', () => {
  it("are the API's values with their counts, then each chosen value it did not return, without a count", () => {
    const counted = [
      { value: 'M', count: 4 },
      { value: 'L', count: 3 },
    ];
    expect(facetChoices(counted, ['m', 'XS'], sameOptionValue)).toEqual([
      { value: 'M', count: 4 },
      { value: 'L', count: 3 },
      { value: 'XS', count: null },
    ]);
    expect(facetChoices(undefined, [7], (a, b) => a === b)).toEqual([{ value: 7, count: null }]);
  });

  it("list the facet's option names in its order, then a chosen option it did not return", () => {
    const facet = { Colour: [{ value: 'Red', count: 1 }], Size: [{ value: 'M', count: 1 }] };
    expect(optionNames(facet, { ...NO_FACET_FILTERS, options: { Material: ['Wool'], Size: ['M'] } })).toEqual(
      ['Colour', 'Size', 'Material'],
    );
    expect(optionNames(undefined, NO_FACET_FILTERS)).toEqual([]);
  });
});

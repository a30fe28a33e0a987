import { describe, expect, it } from '@jest/globals';
import { createCommerceClient } from '@commerce/sdk';
import { createQuerySerializer } from 'openapi-fetch';
import { serializeQuery } from '../src/query-string.js';

/** The URLs an SDK client asks for, answered with an empty product list. */
function recordingClient(querySerializer?: ReturnType<typeof createQuerySerializer>) {
  const urls: string[] = [];
  const client = createCommerceClient({
    baseUrl: 'https://shop.example/api/v1',
    querySerializer,
    fetch: async (input) => {
      urls.push(input instanceof Request ? input.url : String(input));
      return Response.json({
        code: 200,
        message: 'OK',
        data: [],
        meta: { page: 1, page_size: 10, total: 0, total_page: 0 },
      });
    },
  });
  return { client, urls };
}

describe("serializeQuery: the SDK's query strings", () => {
  it('writes a deepObject parameter with several values as its key repeated: option[Size]=M&option[Size]=L', () => {
    expect(serializeQuery({ option: { Size: ['M', 'L'], Colour: 'Red' } })).toBe(
      'option[Size]=M&option[Size]=L&option[Colour]=Red',
    );
  });

  it('percent-encodes the keys inside the brackets and the values (+, &, =, spaces, non-ASCII)', () => {
    expect(serializeQuery({ option: { 'Size & fit': ['1+1', 'a=b'], Größe: 'Weiß' } })).toBe(
      'option[Size%20%26%20fit]=1%2B1&option[Size%20%26%20fit]=a%3Db&option[Gr%C3%B6%C3%9Fe]=Wei%C3%9F',
    );
  });

  it('writes every other query as openapi-fetch does: primitives, booleans, lists repeated, undefined and null left out', () => {
    const queries: Record<string, unknown>[] = [
      {},
      { page: 2, page_size: 20, search: 'desk lamp & more', is_active: false, in_stock: true },
      { facets: 'category_id,options,price', price_min: 10, price_max: 24.99 },
      { status: ['pending', 'paid'], empty: [], none: undefined, nothing: null, zero: 0, blank: '' },
      { option: { Size: 'M' } },
    ];
    const openapiFetch = createQuerySerializer();
    for (const query of queries) expect(serializeQuery(query)).toBe(openapiFetch(query));
  });

  it("is the SDK's default: the product list with several values of an option", async () => {
    const { client, urls } = recordingClient();
    await client.page(
      client.api.GET('/products', {
        params: { query: { page: 1, option: { Size: ['M', 'L'] }, in_stock: true, facets: 'options' } },
      }),
    );
    expect(urls).toEqual([
      'https://shop.example/api/v1/products?page=1&option[Size]=M&option[Size]=L&in_stock=true&facets=options',
    ]);
  });

  it("is needed: openapi-fetch's own serializer refuses an option with several values before any request", async () => {
    const { client, urls } = recordingClient(createQuerySerializer());
    await expect(
      client.api.GET('/products', { params: { query: { option: { Size: ['M', 'L'] } } } }),
    ).rejects.toThrow(/Deeply-nested arrays\/objects/);
    expect(urls).toEqual([]);
  });
});

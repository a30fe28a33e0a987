import { CommerceApiError, createCommerceClient, localStorageTokenStore, type Schemas } from '@commerce/sdk';

/**
 * The console's one API client: same origin, a cookie session (the tokens in HttpOnly cookies no script can read);
 * local storage keeps only the signed-in user, for the next page load.
 */
export const client = createCommerceClient({
  baseUrl: '/api/v1',
  auth: 'cookie',
  tokens: localStorageTokenStore('commerce.admin'),
});

/** Every row of a list, read page after page (`read` asks for one page of the list). */
export async function readAll<T>(
  read: (page: number) => Promise<{ data: T[]; meta: { total_page: number } }>,
): Promise<T[]> {
  const rows: T[] = [];
  for (let page = 1; ; page++) {
    const { data, meta } = await read(page);
    rows.push(...data);
    if (page >= meta.total_page) return rows;
  }
}

/** A call answered with `data: null` (a delete): resolves when it succeeded, throws `CommerceApiError` otherwise. */
export async function succeed(call: Promise<{ error?: unknown; response: Response }>): Promise<void> {
  const { error, response } = await call;
  if (!response.ok) throw new CommerceApiError(response.status, error);
}

/** Every category (admins see inactive ones too). */
export function loadCategories(): Promise<Schemas['CategoryResponseDto'][]> {
  return readAll((page) =>
    client.page(client.api.GET('/categories', { params: { query: { page, page_size: 100 } } })),
  );
}

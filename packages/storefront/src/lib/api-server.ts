import { createCommerceClient, CommerceApiError, type CommerceClient } from '@commerce/sdk';
import { headers } from 'next/headers';

/** The service's origin (`COMMERCE_API_URL`): server rendering calls it directly. */
export const API_ORIGIN = (process.env.COMMERCE_API_URL ?? 'http://127.0.0.1:3000').replace(/\/+$/, '');

/**
 * A client for one request's server rendering: it reads the API as the shopper does, by passing on the cookies the
 * browser sent (the service's session and guest cookies among them). Only reads: a refresh or any other write
 * would set cookies this response cannot hand back, so those happen in the browser.
 */
export async function serverClient(): Promise<CommerceClient> {
  const cookie = (await headers()).get('cookie');
  return createCommerceClient({
    baseUrl: `${API_ORIGIN}/api/v1`,
    auth: 'cookie',
    fetch: async (input, init) => {
      const request = new Request(input, init);
      if (request.method !== 'GET')
        throw new Error(`${request.method} is made in the browser, not while rendering`);
      const forwarded = new Headers(request.headers);
      if (cookie !== null) forwarded.set('cookie', cookie);
      return fetch(new Request(request, { headers: forwarded }), { cache: 'no-store' });
    },
  });
}

/** The value of a call, or null when the API answers `status` (a 404 page, a 401 "please sign in"). */
export async function unless<T>(status: number[], call: Promise<T>): Promise<T | null> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof CommerceApiError && status.includes(error.status)) return null;
    throw error;
  }
}

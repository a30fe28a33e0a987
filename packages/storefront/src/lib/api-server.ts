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
  const incoming = await headers();
  const cookie = incoming.get('cookie');
  // The shopper's address as Next received it (a proxy's header, else the connection's): with TRUST_PROXY naming
  // this server, the service counts each shopper's rate limits on their own, as it does for the proxied calls.
  const forwardedFor = incoming.get('x-forwarded-for');
  return createCommerceClient({
    baseUrl: `${API_ORIGIN}/api/v1`,
    auth: 'cookie',
    fetch: async (input, init) => {
      const request = new Request(input, init);
      if (request.method !== 'GET')
        throw new Error(`${request.method} is made in the browser, not while rendering`);
      if (forwardedFor !== null) request.headers.set('x-forwarded-for', forwardedFor);
      if (cookie === null) return fetch(request, { cache: 'no-store' });
      const withCookies = new Headers(request.headers);
      withCookies.set('cookie', cookie);
      const response = await fetch(new Request(request, { headers: withCookies }), { cache: 'no-store' });
      // A session ended elsewhere leaves its access cookie until it expires: the page is then read as a visitor's
      // (the catalogue is public; `GET /me` answers 401 either way).
      return response.status === 401 ? fetch(request, { cache: 'no-store' }) : response;
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

import { createCommerceClient } from '@commerce/sdk';

/**
 * The browser's one client: the API through this app's `/api/v1` rewrite (same origin), the session and the guest
 * cart's and order's secrets in the service's HttpOnly cookies, never in script-readable storage.
 */
export const client = createCommerceClient({ baseUrl: '/api/v1', auth: 'cookie' });

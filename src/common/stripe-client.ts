import Stripe from 'stripe';

/**
 * A client of Stripe's API (the official SDK) for the secret key, sending its requests to `apiUrl`
 * (STRIPE_API_URL: a proxy, or a test server) instead of https://api.stripe.com when it is set.
 */
export function createStripeClient(
  secretKey: string,
  apiUrl: string | null,
  options: { maxNetworkRetries: number; timeoutMs?: number },
): Stripe {
  const url = apiUrl === null ? null : new URL(apiUrl);
  return new Stripe(secretKey, {
    maxNetworkRetries: options.maxNetworkRetries,
    ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
    ...(url === null
      ? {}
      : {
          host: url.hostname,
          protocol: url.protocol.slice(0, -1) as 'http' | 'https',
          port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
        }),
  });
}

import { NextResponse, type NextRequest } from 'next/server';

/**
 * `/api/v1/*` of this app is the service's API: the browser calls it on the storefront's own origin, so the
 * service's cookies are first-party. A proxy rather than a next.config rewrite, because rewrites are fixed when
 * the app is built: this reads COMMERCE_API_URL when the app runs, so one build serves any service.
 */
export function proxy(request: NextRequest) {
  const api = (process.env.COMMERCE_API_URL ?? 'http://127.0.0.1:3000').replace(/\/+$/, '');
  return NextResponse.rewrite(new URL(`${request.nextUrl.pathname}${request.nextUrl.search}`, api));
}

export const config = { matcher: '/api/v1/:path*' };

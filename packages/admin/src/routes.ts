/**
 * A list page's query string (`?…`, or '' when empty): empty values are left out, and so is page 1, so that a
 * list's address stays as short as what it shows. A list of values repeats its key (`option[Size]=M&option[Size]=L`).
 */
export function listQuery(values: Record<string, string | number | readonly string[]>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) {
    if (Array.isArray(value)) value.forEach((item: string) => params.append(key, item));
    else if (value !== '' && !(key === 'page' && Number(value) <= 1)) params.set(key, String(value));
  }
  const query = params.toString();
  return query === '' ? '' : `?${query}`;
}

/** Where the console is served; every route is below it. */
export const BASE = '/admin';

export type Route =
  | { name: 'login' }
  | { name: 'dashboard' }
  | { name: 'orders' }
  | { name: 'draft-orders' }
  | { name: 'order'; id: number }
  | { name: 'products' }
  | { name: 'product-new' }
  | { name: 'product'; id: number }
  | { name: 'categories' }
  | { name: 'customers' }
  | { name: 'customer-groups' }
  | { name: 'price-lists' }
  | { name: 'shipping-options' }
  | { name: 'regions' }
  | { name: 'tax-rates' }
  | { name: 'gift-cards' }
  | { name: 'promotions' }
  | { name: 'webhooks' }
  | { name: 'returns' }
  | { name: 'not-found' };

const fixed: Record<string, Route> = {
  '': { name: 'dashboard' },
  '/login': { name: 'login' },
  '/orders': { name: 'orders' },
  '/draft-orders': { name: 'draft-orders' },
  '/products': { name: 'products' },
  '/products/new': { name: 'product-new' },
  '/categories': { name: 'categories' },
  '/customers': { name: 'customers' },
  '/customer-groups': { name: 'customer-groups' },
  '/price-lists': { name: 'price-lists' },
  '/shipping-options': { name: 'shipping-options' },
  '/regions': { name: 'regions' },
  '/tax-rates': { name: 'tax-rates' },
  '/gift-cards': { name: 'gift-cards' },
  '/promotions': { name: 'promotions' },
  '/webhooks': { name: 'webhooks' },
  '/returns': { name: 'returns' },
};

/** The route of a location's path (with or without a trailing slash); ids are positive decimal integers. */
export function matchRoute(pathname: string): Route {
  if (pathname !== BASE && !pathname.startsWith(`${BASE}/`)) return { name: 'not-found' };
  const rest = pathname.slice(BASE.length).replace(/\/+$/, '');
  const route = fixed[rest];
  if (route !== undefined) return route;
  const withId = /^\/(orders|products)\/([1-9][0-9]{0,9})$/.exec(rest);
  if (withId !== null) {
    const id = Number(withId[2]);
    return withId[1] === 'orders' ? { name: 'order', id } : { name: 'product', id };
  }
  return { name: 'not-found' };
}

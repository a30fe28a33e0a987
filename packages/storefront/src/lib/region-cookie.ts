/** The storefront's own cookie with the shopper's chosen region id (not a secret: the browser sets it). */
export const REGION_COOKIE = 'storefront_region';

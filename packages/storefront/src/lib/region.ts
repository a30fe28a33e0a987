import type { Schemas } from '@commerce/sdk';
import { cookies } from 'next/headers';
import { serverClient } from './api-server';

export type Region = Schemas['RegionResponseDto'];

/** The storefront's own cookie with the shopper's chosen region id (not a secret: the browser sets it). */
export const REGION_COOKIE = 'storefront_region';

/** Every region, and the shopper's: the one of the cookie, else the service's default region. */
export async function currentRegion(): Promise<{ regions: Region[]; region: Region | null }> {
  const client = await serverClient();
  const { data: regions } = await client.page(
    client.api.GET('/regions', { params: { query: { page_size: 100 } } }),
  );
  const chosen = Number((await cookies()).get(REGION_COOKIE)?.value);
  const region =
    regions.find(({ id }) => id === chosen) ?? regions.find(({ is_default }) => is_default) ?? null;
  return { regions, region };
}

import type { Schemas } from '@commerce/sdk';
import { cookies } from 'next/headers';
import { cache } from 'react';
import { serverClient } from './api-server';
import { REGION_COOKIE } from './region-cookie';

export type Region = Schemas['RegionResponseDto'];

/**
 * Every region, and the shopper's: the one of the cookie, else the service's default region. Read once per
 * request, however many components ask.
 */
export const currentRegion = cache(async (): Promise<{ regions: Region[]; region: Region | null }> => {
  const client = await serverClient();
  const { data: regions } = await client.page(
    client.api.GET('/regions', { params: { query: { page_size: 100 } } }),
  );
  const chosen = Number((await cookies()).get(REGION_COOKIE)?.value);
  const region =
    regions.find(({ id }) => id === chosen) ?? regions.find(({ is_default }) => is_default) ?? null;
  return { regions, region };
});

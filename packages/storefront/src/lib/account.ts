import type { Schemas } from '@commerce/sdk';
import { cache } from 'react';
import { serverClient, unless } from './api-server';

export type User = Schemas['UserResponseDto'];

/** The signed-in shopper (`GET /me` with the browser's cookies), or null; read once per request. */
export const currentUser = cache(async (): Promise<User | null> => {
  const client = await serverClient();
  return unless([401], client.data(client.api.GET('/me')));
});

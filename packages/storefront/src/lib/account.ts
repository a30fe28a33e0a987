import type { Schemas } from '@commerce/sdk';
import { serverClient, unless } from './api-server';

export type User = Schemas['UserResponseDto'];

/** The signed-in shopper (`GET /me` with the browser's cookies), or null. */
export async function currentUser(): Promise<User | null> {
  const client = await serverClient();
  return unless([401], client.data(client.api.GET('/me')));
}

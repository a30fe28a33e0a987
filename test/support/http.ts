import { Agent } from 'node:http';

/**
 * A keep-alive agent for concurrency tests: up to `maxSockets` requests in flight at once over reused
 * connections. Make a fresh one per test and destroy it after: a socket left idle by the previous test can be
 * closed by the server (keepAliveTimeout) just as it is reused, which a busy machine turns into an ECONNRESET.
 */
export function concurrentClient(maxSockets = 256): Agent {
  return new Agent({ keepAlive: true, maxSockets });
}

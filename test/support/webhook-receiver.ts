import { createHmac, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import request from 'supertest';

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Date.now() when the request was complete. */
  at: number;
}

/** How the receiver answers a path: a status, or 'hang' (headers and end never sent). */
export type Answer = number | 'hang';

export interface WebhookReceiver {
  /** http://127.0.0.1:port */
  url: string;
  received: ReceivedWebhook[];
  /** Requests to `path` so far. */
  to(path: string): ReceivedWebhook[];
  /** Sets the answer of `path` (default 204). */
  answer(path: string, answer: Answer): void;
  /** Resolves once `path` has received `count` requests (rejects after `timeoutMs`). */
  waitFor(path: string, count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

/** A webhook endpoint on 127.0.0.1 that records every request (the tests allow private networks for it). */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const answers = new Map<string, Answer>();
  const hanging = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      received.push({ path, headers: request.headers, body, at: Date.now() });
      const answer = answers.get(path) ?? 204;
      if (answer === 'hang') hanging.add(response);
      else response.writeHead(answer).end();
    });
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  const to = (path: string) => received.filter((request) => request.path === path);
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    to,
    answer: (path, answer) => answers.set(path, answer),
    async waitFor(path, count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (to(path).length < count) {
        if (Date.now() > deadline) {
          throw new Error(`${path} received ${to(path).length} of ${count} requests in ${timeoutMs} ms`);
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return to(path);
    },
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/**
 * Verifies a request as a receiver would by the Standard Webhooks scheme: HMAC-SHA256 of `id.timestamp.body`
 * keyed with the secret's base64-decoded bytes, compared with each `v1,` signature of the header.
 */
export function hasValidSignature(secret: string, request: ReceivedWebhook): boolean {
  const id = request.headers['webhook-id'] as string;
  const timestamp = request.headers['webhook-timestamp'] as string;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${request.body}`).digest();
  return String(request.headers['webhook-signature'])
    .split(' ')
    .some((entry) => {
      const [version, value] = entry.split(',');
      const given = Buffer.from(value ?? '', 'base64');
      return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
    });
}

/** Registers a webhook to `url` for `events` as the admin holding `token`; gives its id and secret. */
export async function registerWebhook(
  t: { url: string },
  token: string,
  url: string,
  events: string[],
): Promise<{ id: number; secret: string }> {
  const response = await request(t.url)
    .post('/api/v1/admin/webhooks')
    .auth(token, { type: 'bearer' })
    .send({ url, events })
    .expect(201);
  return response.body.data;
}

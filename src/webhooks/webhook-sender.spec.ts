import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import {
  checkedAddresses,
  newSecret,
  post,
  RefusedUrlError,
  signature,
  type Resolver,
} from './webhook-sender.js';

describe('signature (Standard Webhooks)', () => {
  it('is v1, + base64 HMAC-SHA256 of "id.timestamp.body" keyed with the base64-decoded secret', () => {
    const secret = newSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    const expected = createHmac('sha256', Buffer.from(secret.slice(6), 'base64'))
      .update('evt_1.1700000000.{"a":1}')
      .digest('base64');
    expect(signature(secret, 'evt_1', 1700000000, '{"a":1}')).toBe(`v1,${expected}`);
  });

  it("matches the Standard Webhooks reference implementation's test vector", () => {
    // From the specification's libraries: secret, msg_id, timestamp and payload with their known signature.
    expect(
      signature(
        'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        'msg_p5jXN8AQM9LWM0D4loKWxJek',
        1614265330,
        '{"test": 2432232314}',
      ),
    ).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });
});

describe('checkedAddresses', () => {
  const resolveTo =
    (...addresses: string[]): Resolver =>
    async () =>
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

  it('refuses a name with any non-public address, naming the address and its range', async () => {
    await expect(
      checkedAddresses(new URL('http://shop.example/'), resolveTo('93.184.216.34', '10.0.0.5'), false),
    ).rejects.toThrow(
      new RefusedUrlError(
        'publicAddress',
        'url must reach a public address: shop.example is 10.0.0.5, a private address',
      ),
    );
  });

  it('refuses IP literals of IPv6 loopback and link-local without asking DNS', async () => {
    const noDns: Resolver = async () => {
      throw new Error('DNS asked');
    };
    await expect(checkedAddresses(new URL('http://[::1]:8080/'), noDns, false)).rejects.toThrow(
      'url must reach a public address: ::1 is a loopback address',
    );
    await expect(checkedAddresses(new URL('http://169.254.169.254/'), noDns, false)).rejects.toThrow(
      'link-local',
    );
  });

  it('refuses a name that does not resolve (rule resolvable)', async () => {
    const error = await checkedAddresses(new URL('http://nowhere.invalid/'), resolveTo(), false).catch(
      (e) => e,
    );
    expect(error).toBeInstanceOf(RefusedUrlError);
    expect((error as RefusedUrlError).rule).toBe('resolvable');
  });

  it('lets private addresses through when they are allowed', async () => {
    expect(await checkedAddresses(new URL('http://db.internal/'), resolveTo('10.0.0.5'), true)).toEqual([
      { address: '10.0.0.5', family: 4 },
    ]);
  });
});

describe('post', () => {
  let server: Server;
  let port: number;
  const received: Array<{ url: string; headers: IncomingHttpHeaders; body: string }> = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        received.push({ url: request.url!, headers: request.headers, body });
        if (request.url === '/redirect') {
          response.writeHead(302, { location: '/ok' }).end();
        } else if (request.url === '/slow') {
          response.writeHead(200);
          response.write('part'); // headers come at once, the end never
        } else {
          response.writeHead(request.url === '/fail' ? 500 : 204).end();
        }
      });
    }).listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as { port: number }).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    server.close();
  });

  it('connects to the address checked, not to what DNS answers afterwards (rebinding)', async () => {
    let lookups = 0;
    // First answer: the receiver's address; any later one: an address nothing listens on.
    const rebinding: Resolver = async () => [
      { address: lookups++ === 0 ? '127.0.0.1' : '10.255.255.1', family: 4 },
    ];
    const url = new URL(`http://receiver.test:${port}/ok`);
    const addresses = await checkedAddresses(url, rebinding, true);
    const result = await post(url, addresses, { 'webhook-id': 'evt_1' }, '{"x":1}', 2000);
    expect(result).toEqual({ statusCode: 204 });
    expect(lookups).toBe(1);
    const last = received.at(-1)!;
    expect(last.headers.host).toBe(`receiver.test:${port}`);
    expect(last.headers['content-type']).toBe('application/json');
    expect(last.headers['webhook-id']).toBe('evt_1');
    expect(last.body).toBe('{"x":1}');
  });

  it('refuses at delivery a name whose DNS answer changed to a private address since registration', async () => {
    let lookups = 0;
    const rebinding: Resolver = async () => [
      { address: lookups++ === 0 ? '93.184.216.34' : '127.0.0.1', family: 4 },
    ];
    const url = new URL(`http://receiver.test:${port}/ok`);
    await checkedAddresses(url, rebinding, false); // registration: public
    const before = received.length;
    await expect(checkedAddresses(url, rebinding, false)).rejects.toThrow('127.0.0.1, a loopback address');
    expect(received.length).toBe(before);
  });

  it('a non-2xx answer is an error with its status; a redirect is not followed', async () => {
    const loopback = [{ address: '127.0.0.1', family: 4 }];
    expect(await post(new URL(`http://127.0.0.1:${port}/fail`), loopback, {}, '{}', 2000)).toEqual({
      statusCode: 500,
      error: 'answered HTTP 500',
    });
    const before = received.length;
    expect(await post(new URL(`http://127.0.0.1:${port}/redirect`), loopback, {}, '{}', 2000)).toEqual({
      statusCode: 302,
      error: 'answered HTTP 302',
    });
    expect(received.slice(before).map((request) => request.url)).toEqual(['/redirect']);
  });

  it('an answer not complete within the timeout fails the attempt', async () => {
    const started = Date.now();
    const result = await post(
      new URL(`http://127.0.0.1:${port}/slow`),
      [{ address: '127.0.0.1', family: 4 }],
      {},
      '{}',
      300,
    );
    expect(result).toEqual({ error: 'no complete answer within 300 ms' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('a refused connection is an error without status', async () => {
    const result = await post(
      new URL('http://127.0.0.1:1/'),
      [{ address: '127.0.0.1', family: 4 }],
      {},
      '{}',
      2000,
    );
    expect(result.statusCode).toBeUndefined();
    expect(result.error).toMatch(/ECONNREFUSED/);
  });
});

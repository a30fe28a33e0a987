import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import {
  createCommerceClient,
  memoryTokenStore,
  type CommerceClient,
  type SocketStatus,
  type TokenStore,
  type WebSocketLike,
} from '../src/index.js';

/** A WebSocket the test drives: it records what is sent and opens or closes when told. */
class ScriptedSocket implements WebSocketLike {
  static all: ScriptedSocket[] = [];
  readyState = 0;
  sent: unknown[] = [];
  onopen: WebSocketLike['onopen'] = null;
  onmessage: WebSocketLike['onmessage'] = null;
  onclose: WebSocketLike['onclose'] = null;
  onerror: WebSocketLike['onerror'] = null;
  constructor(readonly url: string) {
    ScriptedSocket.all.push(this);
  }
  send(data: string) {
    this.sent.push(JSON.parse(data));
  }
  close(code = 1000) {
    this.serverClose(code);
  }
  open() {
    this.readyState = 1;
    this.onopen?.({} as never);
  }
  serverClose(code: number) {
    this.readyState = 3;
    this.onclose?.({ code, reason: '' });
  }
  receive(frame: object) {
    this.onmessage?.({ data: JSON.stringify(frame) });
  }
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('the reconnecting socket', () => {
  let store: TokenStore;
  let client: CommerceClient;
  let refreshCalls: number;
  let refreshStatus: number;
  let loginAnswer: string;

  beforeEach(async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    ScriptedSocket.all = [];
    refreshCalls = 0;
    refreshStatus = 200;
    store = memoryTokenStore({
      token: 'access-1',
      refresh_token: 'refresh-1',
      expires_at: Date.now() + 900_000,
    });
    const fetch: typeof globalThis.fetch = async (input) => {
      const url = input instanceof Request ? input.url : String(input);
      if (url.endsWith('/auth/refresh')) {
        refreshCalls += 1;
        const body =
          refreshStatus === 200
            ? {
                code: 200,
                message: 'OK',
                data: {
                  token: `access-${refreshCalls + 1}`,
                  expires_in: 900,
                  refresh_token: `refresh-${refreshCalls + 1}`,
                  refresh_expires_in: 1,
                },
              }
            : { code: 401, message: 'Unauthorized', data: { details: 'Session has been revoked' } };
        return new Response(JSON.stringify(body), { status: refreshStatus });
      }
      if (url.endsWith('/login')) {
        const data = {
          token: loginAnswer,
          expires_in: 900,
          refresh_token: 'refresh-login',
          refresh_expires_in: 1,
        };
        return new Response(JSON.stringify({ code: 200, message: 'OK', data: { ...data, user: { id: 1 } } }));
      }
      if (url.endsWith('/logout')) return new Response('{"code":200,"message":"OK","data":null}');
      return new Response('{}', { status: 404 });
    };
    client = createCommerceClient({
      baseUrl: 'https://shop.example/api/v1',
      tokens: store,
      fetch,
      WebSocket: ScriptedSocket,
    });
  });

  afterEach(() => {
    jest.useRealTimers();
  });

  it('connects to wss://…/api/v1/ws with the token, authenticates in-band and subscribes its channels', async () => {
    const socket = client.socket({ channels: ['orders'] });
    await flush();
    const [first] = ScriptedSocket.all;
    expect(first?.url).toBe('wss://shop.example/api/v1/ws?token=access-1');
    first!.open();
    await flush();
    expect(first!.sent).toEqual(
      expect.arrayContaining([
        { type: 'subscribe', data: { channel: 'orders' } },
        { type: 'auth', data: { token: 'access-1' } },
      ]),
    );
    const received: number[] = [];
    socket.on('order.updated', (frame) => received.push(frame.data.id));
    first!.receive({ type: 'order.updated', data: { id: 12 } });
    first!.receive({ type: 'order.created', data: { id: 13 } });
    expect(received).toEqual([12]);
    socket.close();
  });

  it('reconnects after a cut with growing, jittered delays, and stops on a policy close', async () => {
    jest.spyOn(Math, 'random').mockReturnValue(0.5);
    const socket = client.socket({ minDelayMs: 1000, maxDelayMs: 4000 });
    const statuses: SocketStatus[] = [];
    socket.onStatus((status) => statuses.push(status));
    await flush();
    const delays: number[] = [];
    for (let attempt = 0; attempt < 4; attempt += 1) {
      ScriptedSocket.all.at(-1)!.serverClose(1006);
      const count = ScriptedSocket.all.length;
      let waited = 0;
      while (ScriptedSocket.all.length === count) {
        jest.advanceTimersByTime(50);
        waited += 50;
        await flush();
      }
      delays.push(waited);
    }
    // Equal jitter (random 0.5): three quarters of 1, 2, 4 and then the ceiling of 4 seconds.
    expect(delays).toEqual([750, 1500, 3000, 3000]);
    ScriptedSocket.all.at(-1)!.open();
    ScriptedSocket.all.at(-1)!.serverClose(1008);
    jest.advanceTimersByTime(60_000);
    await flush();
    expect(ScriptedSocket.all).toHaveLength(5);
    expect(socket.status).toBe('closed');
    expect(statuses.slice(-2)).toEqual(['open', 'closed']);
  });

  it('stops on 4429 (too many connections)', async () => {
    const socket = client.socket();
    await flush();
    ScriptedSocket.all[0]!.serverClose(4429);
    jest.advanceTimersByTime(60_000);
    await flush();
    expect(ScriptedSocket.all).toHaveLength(1);
    expect(socket.status).toBe('closed');
  });

  it('on 4401 refreshes once, then reconnects with the new token', async () => {
    client.socket();
    await flush();
    ScriptedSocket.all[0]!.open();
    ScriptedSocket.all[0]!.serverClose(4401);
    await flush();
    expect(refreshCalls).toBe(1);
    expect((await store.get())?.refresh_token).toBe('refresh-2');
    jest.advanceTimersByTime(1000);
    await flush();
    expect(ScriptedSocket.all[1]?.url).toBe('wss://shop.example/api/v1/ws?token=access-2');
  });

  it('on 4401 with a session that cannot be refreshed: the session is cleared, no connection until a login', async () => {
    refreshStatus = 401;
    const socket = client.socket();
    await flush();
    ScriptedSocket.all[0]!.serverClose(4401);
    await flush();
    jest.advanceTimersByTime(60_000);
    await flush();
    expect(ScriptedSocket.all).toHaveLength(1);
    expect(socket.status).toBe('closed');
    expect(await store.get()).toBeNull();

    loginAnswer = 'access-9';
    await client.session.login({ username: 'root_admin', password: 'admin-password-1' });
    await flush();
    expect(ScriptedSocket.all[1]?.url).toBe('wss://shop.example/api/v1/ws?token=access-9');
  });

  it('sends a refreshed token in-band on the open connection, and refreshes a minute before expiry', async () => {
    await store.set({ token: 'access-1', refresh_token: 'refresh-1', expires_at: Date.now() + 120_000 });
    client.socket();
    await flush();
    const first = ScriptedSocket.all[0]!;
    first.open();
    await flush();
    first.sent = [];
    jest.advanceTimersByTime(59_000);
    await flush();
    expect(refreshCalls).toBe(0);
    jest.advanceTimersByTime(2_000);
    await flush();
    expect(refreshCalls).toBe(1);
    expect(first.sent).toEqual([{ type: 'auth', data: { token: 'access-2' } }]);
  });

  it('closes on logout, and connects again after the next login', async () => {
    const socket = client.socket();
    await flush();
    ScriptedSocket.all[0]!.open();
    await client.session.logout();
    await flush();
    expect(socket.status).toBe('closed');
    expect(ScriptedSocket.all[0]!.readyState).toBe(3);
    jest.advanceTimersByTime(60_000);
    await flush();
    expect(ScriptedSocket.all).toHaveLength(1);

    loginAnswer = 'access-7';
    await client.session.login({ username: 'root_admin', password: 'admin-password-1' });
    await flush();
    expect(ScriptedSocket.all[1]?.url).toBe('wss://shop.example/api/v1/ws?token=access-7');
    ScriptedSocket.all[1]!.open();
    expect(socket.status).toBe('open');
  });

  it('created before a login, it connects once signed in', async () => {
    await store.set(null);
    const socket = client.socket();
    await flush();
    expect(ScriptedSocket.all).toHaveLength(0);
    expect(socket.status).toBe('closed');
    loginAnswer = 'access-5';
    await client.session.login({ username: 'root_admin', password: 'admin-password-1' });
    await flush();
    expect(ScriptedSocket.all[0]?.url).toBe('wss://shop.example/api/v1/ws?token=access-5');
  });
});

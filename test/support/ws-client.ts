import { WebSocket, type ClientOptions } from 'ws';
import type { TestApp } from './test-app.js';

export interface Frame {
  type: string;
  data: Record<string, unknown>;
}

/**
 * A real `ws` client that queues what it receives, so a test can await the next frame or the close
 * in the order they arrived.
 */
export class TestSocket {
  private readonly frames: Frame[] = [];
  private readonly waiting: ((frame: Frame) => void)[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private pings = 0;

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as Frame;
      const waiter = this.waiting.shift();
      if (waiter) waiter(frame);
      else this.frames.push(frame);
    });
    socket.on('ping', () => (this.pings += 1));
    this.closed = new Promise((resolve) =>
      socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
  }

  /** Opens `/api/v1/ws` with the token (if any) in the query string and waits for the upgrade. */
  static async open(
    t: Pick<TestApp, 'url'>,
    token?: string,
    options: ClientOptions = {},
  ): Promise<TestSocket> {
    const query = token === undefined ? '' : `?token=${encodeURIComponent(token)}`;
    const socket = new WebSocket(`${t.url.replace(/^http/, 'ws')}/api/v1/ws${query}`, options);
    const client = new TestSocket(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    return client;
  }

  /** Opens a connection and waits until the server has accepted it (a ping answered with pong). */
  static async authenticated(t: Pick<TestApp, 'url'>, token: string): Promise<TestSocket> {
    const client = await TestSocket.open(t, token);
    client.send({ type: 'ping' });
    const frame = await client.next();
    if (frame.type !== 'pong') throw new Error(`expected pong, got ${JSON.stringify(frame)}`);
    return client;
  }

  send(frame: object | string | Buffer): void {
    this.socket.send(typeof frame === 'object' && !Buffer.isBuffer(frame) ? JSON.stringify(frame) : frame);
  }

  next(): Promise<Frame> {
    const frame = this.frames.shift();
    if (frame) return Promise.resolve(frame);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Resolves once the server has sent `count` heartbeat pings to this client. */
  pinged(count: number): Promise<void> {
    if (this.pings >= count) return Promise.resolve();
    return new Promise((resolve) => {
      const listener = () => {
        if (this.pings < count) return;
        this.socket.off('ping', listener);
        resolve();
      };
      this.socket.on('ping', listener);
    });
  }

  /** Frames received and not yet read. */
  get pending(): number {
    return this.frames.length;
  }

  get isOpen(): boolean {
    return this.socket.readyState === WebSocket.OPEN;
  }

  async close(): Promise<void> {
    if (this.socket.readyState !== WebSocket.CLOSED) this.socket.close();
    await this.closed;
  }
}

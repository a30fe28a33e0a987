import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
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
    const socket = new WebSocket(wsUrl(t, token), options);
    const client = new TestSocket(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    return client;
  }

  /** Opens a connection and waits until the server has accepted it (a ping answered with pong). */
  static async authenticated(
    t: Pick<TestApp, 'url'>,
    token: string,
    options: ClientOptions = {},
  ): Promise<TestSocket> {
    const client = await TestSocket.open(t, token, options);
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

  /**
   * Writes, straight to the TCP connection, the header of a text frame announcing `length` bytes and the
   * first `sent` bytes of its payload (spaces), as a client that sends a big frame slowly.
   */
  writePartialFrame(length: number, sent: number): void {
    const header = textFrameHeader(length);
    const mask = header.subarray(10);
    const payload = Buffer.alloc(sent, ' ').map((byte, i) => byte ^ mask[i % 4]);
    this.tcp.write(Buffer.concat([header, payload]));
  }

  /** Sends more of the payload begun by writePartialFrame (its masking does not matter: it is never read). */
  writeMore(bytes: number): void {
    this.tcp.write(Buffer.alloc(bytes, ' '));
  }

  private get tcp(): Socket {
    return (this.socket as unknown as { _socket: Socket })._socket;
  }

  async close(): Promise<void> {
    if (this.socket.readyState !== WebSocket.CLOSED) this.socket.close();
    await this.closed;
  }
}

/** The header of a masked text frame announcing `length` bytes (64-bit length); its last 4 bytes are the mask. */
function textFrameHeader(length: number): Buffer {
  const header = Buffer.alloc(14);
  header[0] = 0x81; // FIN, text
  header[1] = 0x80 | 127; // masked, 64-bit length
  header.writeBigUInt64BE(BigInt(length), 2);
  randomBytes(4).copy(header, 10);
  return header;
}

const wsUrl = (t: Pick<TestApp, 'url'>, token?: string) =>
  `${t.url.replace(/^http/, 'ws')}/api/v1/ws${token === undefined ? '' : `?token=${encodeURIComponent(token)}`}`;

/** Attempts a handshake that the server is expected to refuse; returns its HTTP answer. */
export function refusedHandshake(
  t: Pick<TestApp, 'url'>,
  token: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: IncomingMessage['headers']; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(wsUrl(t, token), { headers });
    socket.on('open', () => {
      socket.close();
      reject(new Error('the handshake was accepted'));
    });
    socket.on('error', () => undefined);
    socket.on('unexpected-response', (request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => {
        request.destroy();
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body });
      });
    });
  });
}

/**
 * A WebSocket client on a bare TCP connection that never answers the server's close frame and never
 * closes its side (half-open allowed): the client an abuser writes. It reports the code of the server's
 * close frame; whether the server then lets go of the TCP connection is for the test to check.
 */
export class UnresponsiveClient {
  private received = Buffer.alloc(0);
  private upgraded = false;
  /** The status code of the server's close frame. */
  readonly closeCode: Promise<number>;
  private onCloseFrame!: (code: number) => void;

  private constructor(private readonly tcp: Socket) {
    this.closeCode = new Promise((resolve) => (this.onCloseFrame = resolve));
    tcp.on('data', (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      this.readFrames();
    });
    tcp.on('error', () => undefined);
  }

  static async open(t: Pick<TestApp, 'url'>, token: string): Promise<UnresponsiveClient> {
    const { hostname, port } = new URL(t.url);
    const tcp = connect({ host: hostname, port: Number(port), allowHalfOpen: true });
    const client = new UnresponsiveClient(tcp);
    await new Promise<void>((resolve, reject) => {
      tcp.once('connect', () => resolve());
      tcp.once('error', reject);
    });
    tcp.write(
      `GET /api/v1/ws?token=${encodeURIComponent(token)} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n` +
        `Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n` +
        `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\n\r\n`,
    );
    const deadline = Date.now() + 10_000; // a busy machine can take seconds to answer
    while (!client.upgraded && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    if (!client.upgraded) throw new Error('the handshake was not answered with 101');
    return client;
  }

  /** Sends `frame` (JSON) `times` times in one write, as masked text frames. */
  sendText(frame: object, times = 1): void {
    const payload = Buffer.from(JSON.stringify(frame));
    const header = Buffer.from([0x81, 0x80 | payload.length]); // payloads under 126 bytes
    const mask = randomBytes(4);
    const masked = payload.map((byte, i) => byte ^ mask[i % 4]);
    this.tcp.write(Buffer.concat(Array.from({ length: times }, () => Buffer.concat([header, mask, masked]))));
  }

  /** Announces a text frame of `length` bytes (64-bit length) and sends none of it. */
  announceFrame(length: number): void {
    this.tcp.write(textFrameHeader(length));
  }

  destroy(): void {
    this.tcp.destroy();
  }

  private readFrames(): void {
    if (!this.upgraded) {
      const end = this.received.indexOf('\r\n\r\n');
      if (end === -1) return;
      if (!this.received.subarray(0, 12).toString().startsWith('HTTP/1.1 101')) return;
      this.upgraded = true;
      this.received = this.received.subarray(end + 4);
    }
    // Server frames are unmasked; the server's are small, or announce a 16-bit length.
    while (this.received.length >= 2) {
      let length = this.received[1] & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (this.received.length < 4) return;
        length = this.received.readUInt16BE(2);
        offset = 4;
      }
      if (this.received.length < offset + length) return;
      if ((this.received[0] & 0x0f) === 0x8) this.onCloseFrame(this.received.readUInt16BE(offset));
      this.received = this.received.subarray(offset + length);
    }
  }
}

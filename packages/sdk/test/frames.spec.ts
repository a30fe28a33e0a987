import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseClientFrame } from '../../../src/realtime/frames.js';
import type { ClientFrame } from '../src/index.js';

const SRC = join(__dirname, '..', '..', '..', 'src');

/** One client frame of each type, as the SDK sends it. */
const CLIENT_FRAMES: { [T in ClientFrame['type']]: Extract<ClientFrame, { type: T }> } = {
  ping: { type: 'ping' },
  message: { type: 'message', data: { content: 'hello' } },
  auth: { type: 'auth', data: { token: 'a.b.c' } },
  subscribe: { type: 'subscribe', data: { channel: 'orders' } },
  unsubscribe: { type: 'unsubscribe', data: { channel: 'orders' } },
};

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')
        ? [join(dir, entry.name)]
        : [],
  );

describe("the SDK's frames and the gateway's", () => {
  it('every client frame the SDK sends is read by the gateway as the same frame', () => {
    for (const frame of Object.values(CLIENT_FRAMES)) {
      const parsed = parseClientFrame(Buffer.from(JSON.stringify(frame)), false);
      expect(parsed).toEqual({ frame: { type: frame.type, ...('data' in frame ? frame.data : {}) } });
    }
  });

  it('the client frame types are exactly those the gateway expects', () => {
    const refused = parseClientFrame(Buffer.from('{"type":"unknown"}'), false);
    const details = 'error' in refused ? refused.error.details : '';
    const expected = [...details.matchAll(/"([a-z]+)"/g)].map((match) => match[1]).sort();
    expect(expected).toEqual(Object.keys(CLIENT_FRAMES).sort());
  });

  it('the events sent as frames are the ones the SDK types (order.created, order.updated)', () => {
    const declared = sourceFiles(SRC).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/sendAsWebSocketFrames\('([^']+)'/g)].map((match) => match[1]),
    );
    expect(declared.sort()).toEqual(['order.created', 'order.updated']);
  });
});

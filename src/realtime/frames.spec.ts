import { describe, expect, it } from '@jest/globals';
import { MAX_FRAME_BYTES, parseClientFrame } from './frames.js';

const parse = (value: unknown) =>
  parseClientFrame(Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)), false);

describe('parseClientFrame', () => {
  it('reads ping and message frames', () => {
    expect(parse({ type: 'ping' })).toEqual({ frame: { type: 'ping' } });
    expect(parse({ type: 'message', data: { content: 'hello' } })).toEqual({
      frame: { type: 'message', content: 'hello' },
    });
  });

  it('reads an auth frame with a token, and names what is wrong with a bad one', () => {
    expect(parse({ type: 'auth', data: { token: 'a.b.c' } })).toEqual({
      frame: { type: 'auth', token: 'a.b.c' },
    });
    const badToken = { error: { code: 400, details: 'data.token must be a string of 1 to 4096 characters' } };
    expect(parse({ type: 'auth', data: { token: '' } })).toEqual(badToken);
    expect(parse({ type: 'auth', data: { token: 7 } })).toEqual(badToken);
    expect(parse({ type: 'auth', data: { token: 'x'.repeat(4097) } })).toEqual(badToken);
    expect(parse({ type: 'auth' })).toEqual({
      error: { code: 400, details: 'data must be an object with token' },
    });
    expect(parse({ type: 'auth', data: { token: 'a', sid: 'b' } })).toEqual({
      error: { code: 400, details: 'data.sid is not allowed' },
    });
  });

  it('counts content in characters: 2000 emoji pass, 2001 characters do not, empty does not', () => {
    expect(parse({ type: 'message', data: { content: '😀'.repeat(2000) } })).toEqual({
      frame: { type: 'message', content: '😀'.repeat(2000) },
    });
    const tooLong = { error: { code: 400, details: 'data.content must be 1 to 2000 characters long' } };
    expect(parse({ type: 'message', data: { content: 'a'.repeat(2001) } })).toEqual(tooLong);
    expect(parse({ type: 'message', data: { content: '' } })).toEqual(tooLong);
  });

  it('names the rule a bad frame breaks', () => {
    const details = (value: unknown) => {
      const result = parse(value);
      return 'error' in result ? result.error.details : null;
    };
    expect(details('{"type":')).toBe('Frame is not valid JSON');
    expect(details('[1,2]')).toBe('Frame must be a JSON object with a string "type"');
    expect(details({ type: 7 })).toBe('Frame must be a JSON object with a string "type"');
    expect(details({ type: 'shout' })).toBe(
      'Unknown type: expected "message", "ping", "auth", "subscribe" or "unsubscribe"',
    );
    expect(details({ type: 'ping', extra: true })).toBe(
      'Unknown field "extra": a frame has only type and data',
    );
    expect(details({ type: 'message' })).toBe('data must be an object with content');
    expect(details({ type: 'message', data: { content: 5 } })).toBe('data.content must be a string');
    expect(details({ type: 'message', data: { content: 'hi', user: { id: 1 } } })).toBe(
      'data.user is not allowed',
    );
  });

  it('refuses binary frames', () => {
    expect(parseClientFrame(Buffer.from('{"type":"ping"}'), true)).toEqual({
      error: { code: 400, details: 'Frames must be JSON text, not binary' },
    });
    const exact = Buffer.from(JSON.stringify({ type: 'ping' }).padEnd(MAX_FRAME_BYTES, ' '));
    expect(parseClientFrame(exact, false)).toEqual({ frame: { type: 'ping' } });
  });
});

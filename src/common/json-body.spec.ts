import { describe, expect, it } from '@jest/globals';
import type { IncomingMessage } from 'node:http';
import { BodyRefusedError, checkJsonBody, MAX_JSON_DEPTH } from './json-body.js';

const check = (body: string | Buffer) =>
  checkJsonBody({} as IncomingMessage, {}, typeof body === 'string' ? Buffer.from(body) : body);

function ruleOf(body: string | Buffer): string | null {
  try {
    check(body);
    return null;
  } catch (error) {
    return (error as BodyRefusedError).rule;
  }
}

describe('checkJsonBody', () => {
  it(`accepts nesting up to ${MAX_JSON_DEPTH} levels and refuses one more`, () => {
    expect(ruleOf('['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH))).toBeNull();
    expect(ruleOf('['.repeat(MAX_JSON_DEPTH + 1) + ']'.repeat(MAX_JSON_DEPTH + 1))).toBe('maxDepth');
  });

  it('does not count brackets inside strings, nor escaped quotes as string ends', () => {
    const deepInString = JSON.stringify({ a: '['.repeat(100), b: 'say \\"[[[[" ok' });
    expect(ruleOf(deepInString)).toBeNull();
  });

  it('refuses invalid UTF-8 bytes', () => {
    expect(ruleOf(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]))).toBe('utf8');
    expect(ruleOf('{"a":"é 😀"}')).toBeNull();
  });

  it('refuses \\u escapes of unpaired surrogates and accepts pairs and escaped backslashes', () => {
    expect(ruleOf('{"a":"\\ud800"}')).toBe('unicode');
    expect(ruleOf('{"a":"\\uDC00"}')).toBe('unicode');
    expect(ruleOf('{"a":"\\ud800\\u0041"}')).toBe('unicode');
    expect(ruleOf('{"\\ud800":1}')).toBe('unicode');
    expect(ruleOf('{"a":"\\ud83d\\ude00"}')).toBeNull();
    expect(ruleOf('{"a":"\\\\ud800"}')).toBeNull();
  });

  it('leaves malformed JSON to the parser', () => {
    expect(ruleOf('{"a":')).toBeNull();
  });
});

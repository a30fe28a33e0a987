import { describe, expect, it, jest } from '@jest/globals';
import { JwtService } from '@nestjs/jwt';
import { createSecretKey } from 'node:crypto';
import { VerifiedTokens } from './verified-tokens.js';

const key = createSecretKey(Buffer.from('verified-tokens-test-secret', 'utf8'));
const jwt = new JwtService({
  secret: key,
  signOptions: { algorithm: 'HS256' },
  verifyOptions: { algorithms: ['HS256'] },
});
const claims = { sub: '7', sid: '00000000-0000-4000-8000-000000000000', username: 'u', role: 'user' };

describe('VerifiedTokens', () => {
  it('verifies a token once and answers its repeats from memory, until the second it expires', () => {
    jest.useFakeTimers({ now: 1_700_000_000_000 });
    try {
      const tokens = new VerifiedTokens(jwt);
      const token = jwt.sign(claims, { expiresIn: 60 });
      const verify = jest.spyOn(jwt, 'verify');
      expect(tokens.verify(token)).toMatchObject({ sub: '7', exp: 1_700_000_060 });
      expect(tokens.verify(token)).toMatchObject({ sub: '7' });
      expect(verify).toHaveBeenCalledTimes(1);
      jest.setSystemTime(1_700_000_059_999);
      expect(tokens.verify(token)).toMatchObject({ sub: '7' });
      jest.setSystemTime(1_700_000_060_000);
      expect(() => tokens.verify(token)).toThrow('jwt expired');
      verify.mockRestore();
    } finally {
      jest.useRealTimers();
    }
  });

  it('never remembers a token that failed, and refuses any change to a remembered one', () => {
    const tokens = new VerifiedTokens(jwt);
    const forged = new JwtService({ secret: 'another-secret' }).sign(claims, { expiresIn: 60 });
    expect(() => tokens.verify(forged)).toThrow('invalid signature');
    expect(() => tokens.verify(forged)).toThrow('invalid signature');
    const token = jwt.sign(claims, { expiresIn: 60 });
    tokens.verify(token);
    const [head, , signature] = token.split('.');
    const body = Buffer.from(JSON.stringify({ ...claims, role: 'admin', exp: 9_999_999_999 })).toString(
      'base64url',
    );
    expect(() => tokens.verify(`${head}.${body}.${signature}`)).toThrow('invalid signature');
    expect(() => tokens.verify(`${token}x`)).toThrow();
  });

  it('hands out claims that cannot be changed', () => {
    const tokens = new VerifiedTokens(jwt);
    const token = jwt.sign(claims, { expiresIn: 60 });
    tokens.verify(token);
    expect(Object.isFrozen(tokens.verify(token))).toBe(true);
  });
});

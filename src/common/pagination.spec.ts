import { describe, expect, it } from '@jest/globals';
import { BadRequestException } from '@nestjs/common';
import { containsPattern, decodeCursor, encodeCursor, pageWindow } from './pagination.js';
import { ValidationFailedException } from './validation.js';

describe('pageWindow', () => {
  it('computes the offset of a page', () => {
    expect(pageWindow({ page: 3, page_size: 20 }, 100)).toEqual({ page: 3, pageSize: 20, skip: 40 });
  });

  it('refuses a page_size above PAGE_SIZE_MAX naming the field and the limit', () => {
    expect(() => pageWindow({ page: 1, page_size: 51 }, 50)).toThrow(
      new BadRequestException('page_size must not be greater than 50'),
    );
  });
});

describe('containsPattern', () => {
  it('wraps the term in % and escapes the LIKE wildcards and the escape character', () => {
    expect(containsPattern('abc')).toBe('%abc%');
    expect(containsPattern('50%_off!')).toBe('%50!%!_off!!%');
  });
});

describe('cursors', () => {
  const anyNumber = (value: unknown): value is number => typeof value === 'number';
  const cursorError = (raw: string, sort = 'price') => {
    try {
      decodeCursor(raw, sort, anyNumber);
    } catch (error) {
      return error instanceof ValidationFailedException ? error.errors : error;
    }
    return 'no error';
  };

  it('gives back the position it was made from, for the same sort', () => {
    const cursor = encodeCursor('price', { value: 1999, id: 42 });
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor, 'price', anyNumber)).toEqual({ value: 1999, id: 42 });
  });

  it.each([
    ['not base64url', '!!', 'cursor'],
    ['not JSON', Buffer.from('{').toString('base64url'), 'cursor'],
    ['no id', Buffer.from('{"s":"price","v":1}').toString('base64url'), 'cursor'],
    ['a fractional id', Buffer.from('{"s":"price","v":1,"i":1.5}').toString('base64url'), 'cursor'],
    ['a wrong value', Buffer.from('{"s":"price","v":"1","i":1}').toString('base64url'), 'cursor'],
    ['another sort', encodeCursor('-price', { value: 1, id: 1 }), 'cursorSort'],
  ])('refuses %s with a 400 naming cursor', (_what, raw, rule) => {
    expect(cursorError(raw)).toMatchObject([{ field: 'cursor', rule }]);
  });
});

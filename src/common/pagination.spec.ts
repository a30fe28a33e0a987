import { describe, expect, it } from '@jest/globals';
import { BadRequestException } from '@nestjs/common';
import { containsPattern, pageWindow } from './pagination.js';

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

import { describe, expect, it } from '@jest/globals';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { toCents } from '../../common/money.js';
import { CreateProductDto } from './product.dto.js';

function priceErrors(price: unknown): string[] {
  const dto = plainToInstance(CreateProductDto, { name: 'n', price, category_id: 1 });
  return validateSync(dto)
    .filter((error) => error.property === 'price')
    .flatMap((error) => Object.values(error.constraints ?? {}));
}

describe('product money rules', () => {
  it.each([19.99, 0.1, 0.01, 1, 9999999.99])('accepts %p', (price) => {
    expect(priceErrors(price)).toEqual([]);
  });

  it.each([0.001, 1e-7, 1.005, Number.NaN, Number.POSITIVE_INFINITY, '1.00'])('refuses %p', (price) => {
    expect(priceErrors(price)).toContain('price must be a number with at most 2 decimal places');
  });

  it('converts prices to exact cents despite binary floating point', () => {
    expect(19.99 * 100).not.toBe(1999);
    expect(toCents(19.99)).toBe(1999);
    expect(toCents(0.1)).toBe(10);
    expect(toCents(1.15)).toBe(115);
    expect(toCents(9999999.99)).toBe(999999999);
  });
});

import { describe, expect, it } from '@jest/globals';
import { freeSlug, SLUG_MAX_LENGTH, SLUG_PATTERN, slugify } from './slug.js';

describe('slugify', () => {
  it.each([
    ['Desk Lamp', 'desk-lamp'],
    ['  desk  lamp!! ', 'desk-lamp'],
    ['Crème Brûlée, 250 g', 'creme-brulee-250-g'],
    ['T-Shirt (XL)', 't-shirt-xl'],
    ['2024', 'product-2024'],
    ['茶', 'product'],
    ['', 'product'],
  ])('%j -> %j, a valid slug', (name, slug) => {
    expect(slugify(name, 'product')).toBe(slug);
    expect(SLUG_PATTERN.test(slug)).toBe(true);
  });

  it('cuts a long name to SLUG_MAX_LENGTH without a trailing hyphen', () => {
    const slug = slugify(`${'a'.repeat(SLUG_MAX_LENGTH - 1)} b`, 'product');
    expect(slug).toBe('a'.repeat(SLUG_MAX_LENGTH - 1));
  });
});

describe('freeSlug', () => {
  it('keeps a free base and takes the suffix after the highest one used', () => {
    expect(freeSlug('lamp', [])).toBe('lamp');
    expect(freeSlug('lamp', ['lamp'])).toBe('lamp-2');
    expect(freeSlug('lamp', ['lamp', 'lamp-2', 'lamp-7', 'lamp-shade'])).toBe('lamp-8');
  });
});

describe('SLUG_PATTERN', () => {
  it.each(['a--b', '-a', 'a-', '123', 'A', 'a_b', 'a b'])('refuses %j', (slug) => {
    expect(SLUG_PATTERN.test(slug)).toBe(false);
  });
});

describe('slugify for categories (digits allowed, shorter)', () => {
  it.each([
    ['Café & Crème Brûlée!', 'cafe-creme-brulee'],
    ['2024', '2024'],
    ['★★★', 'category'],
  ])('%j -> %j', (name, slug) => {
    expect(slugify(name, 'category', { maxLength: 100, letterRequired: false })).toBe(slug);
  });

  it('cuts at maxLength', () => {
    expect(slugify('x'.repeat(150), 'category', { maxLength: 100, letterRequired: false })).toBe(
      'x'.repeat(100),
    );
  });
});

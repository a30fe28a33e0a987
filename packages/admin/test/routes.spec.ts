import { describe, expect, it } from '@jest/globals';
import { listQuery, matchRoute } from '../src/routes';

describe('matchRoute: the pages under /admin', () => {
  it('finds each page, with or without a trailing slash', () => {
    expect(matchRoute('/admin')).toEqual({ name: 'dashboard' });
    expect(matchRoute('/admin/')).toEqual({ name: 'dashboard' });
    expect(matchRoute('/admin/login')).toEqual({ name: 'login' });
    expect(matchRoute('/admin/orders/')).toEqual({ name: 'orders' });
    expect(matchRoute('/admin/products/new')).toEqual({ name: 'product-new' });
    expect(matchRoute('/admin/shipping-options')).toEqual({ name: 'shipping-options' });
    expect(matchRoute('/admin/regions')).toEqual({ name: 'regions' });
    expect(matchRoute('/admin/customer-groups')).toEqual({ name: 'customer-groups' });
    expect(matchRoute('/admin/price-lists/')).toEqual({ name: 'price-lists' });
    expect(matchRoute('/admin/tax-rates/')).toEqual({ name: 'tax-rates' });
  });

  it('reads ids as positive decimal integers only', () => {
    expect(matchRoute('/admin/orders/12')).toEqual({ name: 'order', id: 12 });
    expect(matchRoute('/admin/products/7')).toEqual({ name: 'product', id: 7 });
    expect(matchRoute('/admin/orders/0')).toEqual({ name: 'not-found' });
    expect(matchRoute('/admin/orders/012')).toEqual({ name: 'not-found' });
    expect(matchRoute('/admin/orders/1e3')).toEqual({ name: 'not-found' });
  });

  it('knows nothing outside /admin or of unknown pages', () => {
    expect(matchRoute('/administrator')).toEqual({ name: 'not-found' });
    expect(matchRoute('/admin/settings')).toEqual({ name: 'not-found' });
  });
});

describe('listQuery: a list page address shows only what narrows the list', () => {
  it('leaves out empty values and page 1, and is empty when nothing is left', () => {
    expect(listQuery({ search: '', page: 1 })).toBe('');
    expect(listQuery({ search: 'lamp', active: '', page: 1 })).toBe('?search=lamp');
    expect(listQuery({ status: 'pending', sort: '', page: 3 })).toBe('?status=pending&page=3');
    expect(listQuery({ search: 'a&b' })).toBe('?search=a%26b');
  });

  it('repeats the key of a list of values, and leaves an empty list out', () => {
    const query = listQuery({ 'option[Size]': ['M', 'L'], 'option[Colour]': [], page: 2 });
    expect(query).toBe('?option%5BSize%5D=M&option%5BSize%5D=L&page=2');
    expect(new URLSearchParams(query).getAll('option[Size]')).toEqual(['M', 'L']);
  });
});

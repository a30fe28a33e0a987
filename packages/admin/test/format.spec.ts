import { describe, expect, it } from '@jest/globals';
import {
  countryList,
  formatMoney,
  formatTotal,
  humanize,
  localToday,
  startOfLocalDay,
  startOfNextLocalDay,
} from '../src/format';

describe('formatting', () => {
  it('shows amounts (decimals of the currency) with the currency when it is known', () => {
    expect(formatMoney(59.9, null)).toBe('59.90');
    expect(formatMoney(59.97, 'usd')).toMatch(/59\.97/);
    expect(formatMoney(59.97, 'usd')).toMatch(/\$|USD/);
  });

  it('shows a capped search total (total_exact false) as at least that many, any other total as it is', () => {
    const tenThousand = (10_000).toLocaleString();
    expect(formatTotal({ total: 10_000, total_exact: false })).toBe(`${tenThousand}+`);
    expect(formatTotal({ total: 10_000, total_exact: true })).toBe(tenThousand);
    expect(formatTotal({ total: 42 })).toBe('42');
  });

  it('turns API values into words', () => {
    expect(humanize('partially_refunded')).toBe('Partially refunded');
    expect(humanize('pending')).toBe('Pending');
  });

  it('reads a date input as local days', () => {
    const start = new Date(startOfLocalDay('2026-12-31'));
    const next = new Date(startOfNextLocalDay('2026-12-31'));
    expect([start.getFullYear(), start.getMonth(), start.getDate(), start.getHours()]).toEqual([
      2026, 11, 31, 0,
    ]);
    expect([next.getFullYear(), next.getMonth(), next.getDate(), next.getHours()]).toEqual([2027, 0, 1, 0]);
    expect(localToday(new Date(2026, 0, 5, 23, 59))).toBe('2026-01-05');
  });

  it('reads countries as upper-case codes separated by commas or spaces', () => {
    expect(countryList(' de, AT  fr,,')).toEqual(['DE', 'AT', 'FR']);
    expect(countryList('')).toEqual([]);
  });
});

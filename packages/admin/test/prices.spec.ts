import { describe, expect, it } from '@jest/globals';
import { otherPriceRows, pricesBody, samePrices } from '../src/price-rows';
import { amountStep, formatMoney, formatRate, minorDigits } from '../src/format';
import { totalsByCurrency } from '../src/orders';

const prices = [
  { currency_code: 'usd', amount: 19.99 },
  { currency_code: 'eur', amount: 18.5 },
  { currency_code: 'jpy', amount: 2900 },
];

describe('price rows: the prices other than the default currency’s, as a form edits them', () => {
  it('leaves out the first entry (the default currency’s, which is `price`) and shows codes upper-case', () => {
    expect(otherPriceRows(prices)).toEqual([
      { currency: 'EUR', amount: '18.5' },
      { currency: 'JPY', amount: '2900' },
    ]);
  });

  it('sends codes lower-case in the rows’ order, an empty amount as NaN (null in JSON) for the API to refuse', () => {
    expect(
      pricesBody([
        { currency: ' EUR ', amount: '18.50' },
        { currency: 'JPY', amount: '' },
      ]),
    ).toEqual([
      { currency_code: 'eur', amount: 18.5 },
      { currency_code: 'jpy', amount: Number.NaN },
    ]);
    expect(JSON.stringify(pricesBody([{ currency: 'EUR', amount: '' }]))).toBe(
      '[{"currency_code":"eur","amount":null}]',
    );
  });

  it('tells whether the rows change the record’s prices (a partial update leaves them out when not)', () => {
    expect(samePrices(otherPriceRows(prices), prices)).toBe(true);
    expect(
      samePrices(
        [
          { currency: 'EUR', amount: '18.50' },
          { currency: 'JPY', amount: '2900' },
        ],
        prices,
      ),
    ).toBe(true);
    expect(samePrices([{ currency: 'EUR', amount: '17' }], prices)).toBe(false);
    expect(samePrices([], prices)).toBe(false);
  });
});

describe('amounts in a currency', () => {
  it('knows each currency’s decimals (2 for EUR, 0 for JPY; 2 when unknown) and the step of its inputs', () => {
    expect(minorDigits('eur')).toBe(2);
    expect(minorDigits('jpy')).toBe(0);
    expect(minorDigits(null)).toBe(2);
    expect(minorDigits('x')).toBe(2);
    expect(amountStep('eur')).toBe('0.01');
    expect(amountStep('JPY')).toBe('1');
  });

  it('formats an amount in the currency given (an order’s), whatever the shop’s default is', () => {
    expect(formatMoney(11.9, 'eur')).toMatch(/€|EUR/);
    expect(formatMoney(1999, 'jpy')).toMatch(/1,?999/);
    expect(formatMoney(1999, 'jpy')).not.toMatch(/\.00/);
  });

  it('shows rates in percent', () => {
    expect(formatRate(19)).toBe('19 %');
    expect(formatRate(7.25)).toMatch(/^7.25 %$/);
  });

  it('sums orders per currency in minor units, never adding euros to dollars', () => {
    expect(
      totalsByCurrency([
        { total: 0.1, currency_code: 'eur' },
        { total: 5, currency_code: 'usd' },
        { total: 0.2, currency_code: 'eur' },
        { total: 1999, currency_code: 'jpy' },
      ]),
    ).toEqual([
      { currency: 'eur', amount: 0.3 },
      { currency: 'usd', amount: 5 },
      { currency: 'jpy', amount: 1999 },
    ]);
  });
});

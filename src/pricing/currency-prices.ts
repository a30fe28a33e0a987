/**
 * A unit price in a currency, in minor units: the default currency's is `priceCents` (the seed `price`), any
 * other's comes from the `prices` map (JSON text or parsed); null when there is none in that currency.
 */
export function unitPriceIn(
  currency: string,
  defaultCurrency: string,
  priceCents: number,
  prices: Record<string, number> | string | null,
): number | null {
  if (currency === defaultCurrency) return priceCents;
  const map = typeof prices === 'string' ? (JSON.parse(prices) as Record<string, number>) : prices;
  const amount = map?.[currency];
  return amount === undefined ? null : Number(amount);
}

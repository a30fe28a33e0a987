import { toCents } from '../common/money.js';
import { ValidationFailedException } from '../common/validation.js';
import { type CurrencyPrice, type PricesWrite, pricesWrite } from '../pricing/currency-prices.js';
import { PRICE_MAX } from './dto/product.dto.js';

/**
 * What the `prices` of a product's or a variant's write set (see `pricesWrite`), the default currency's amount
 * within `price`'s bounds; a 400 listing every problem otherwise.
 */
export function writtenPrices(
  prices: CurrencyPrice[],
  defaultCurrency: string,
  price: number | undefined,
): PricesWrite {
  const { write, problems } = pricesWrite(
    prices,
    defaultCurrency,
    price === undefined ? undefined : toCents(price),
    {
      minCents: 1,
      maxCents: toCents(PRICE_MAX),
    },
  );
  if (problems.length > 0) throw new ValidationFailedException(problems);
  return write;
}

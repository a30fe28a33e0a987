import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { TaxRate, TaxTarget } from '../pricing/calculator.js';
import { type TaxQuery, type TaxQuote, TaxProvider } from './tax-provider.js';

const RATES_OF_COUNTRY = 'SELECT subdivision, tax_class, rate, name, code FROM tax_rates WHERE country = ?';

interface RateRow {
  subdivision: string;
  tax_class: string;
  rate: number | string;
  name: string;
  code: string;
}

/**
 * The rate table of /tax-rates: the most specific rate of the class at the address (its subdivision, then
 * its country), else the `standard` rate there (again subdivision first), else no tax.
 */
@Injectable()
export class RateTableTaxProvider extends TaxProvider {
  readonly name = 'rates';

  async quote(manager: EntityManager, query: TaxQuery): Promise<TaxQuote> {
    const rows: RateRow[] = await manager.query(RATES_OF_COUNTRY, [query.address.country]);
    const subdivision = query.address.subdivision ?? '';
    const find = (taxClass: string, place: string) =>
      rows.find((row) => row.tax_class === taxClass && row.subdivision === place);
    return {
      ratesOf({ taxClass }: TaxTarget): TaxRate[] {
        const row =
          (subdivision === '' ? undefined : find(taxClass, subdivision)) ??
          find(taxClass, '') ??
          (subdivision === '' ? undefined : find('standard', subdivision)) ??
          find('standard', '');
        return row === undefined ? [] : [{ code: row.code, name: row.name, rate: Number(row.rate) }];
      },
      calculationId: null,
    };
  }

  recordPaid(): Promise<string | null> {
    return Promise.resolve(null);
  }
}

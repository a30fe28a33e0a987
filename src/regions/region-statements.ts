import type { RegionInfo } from './region-directory.js';

const REGION_COLUMNS =
  'r.id, r.name, r.currency_code, r.prices_include_tax, r.is_default, rc.country FROM regions r ' +
  'LEFT JOIN region_countries rc ON rc.region_id = r.id';
/** A region (or the default one with NULL) with its countries, one row per country: one statement. */
export const REGION_BY_ID =
  `SELECT ${REGION_COLUMNS} WHERE r.id = COALESCE(?, (SELECT d.id FROM regions d WHERE d.is_default = 1)) ` +
  'ORDER BY rc.position';
/** The region that lists a country, else the default region. */
export const REGION_SERVING =
  `SELECT ${REGION_COLUMNS} WHERE r.id = COALESCE((SELECT c.region_id FROM region_countries c WHERE c.country = ?), ` +
  '(SELECT d.id FROM regions d WHERE d.is_default = 1)) ORDER BY rc.position';

export interface RegionRow {
  id: number | string;
  name: string;
  currency_code: string;
  prices_include_tax: number | string | boolean;
  is_default: number | string | boolean;
  country: string | null;
}

/** The region of a REGION_BY_ID or REGION_SERVING answer, or null for no rows. */
export function regionOf(rows: RegionRow[]): RegionInfo | null {
  if (rows.length === 0) return null;
  const [first] = rows;
  return {
    id: Number(first.id),
    name: first.name,
    currencyCode: first.currency_code,
    pricesIncludeTax: Number(first.prices_include_tax) === 1,
    isDefault: Number(first.is_default) === 1,
    countries: rows.flatMap((row) => (row.country === null ? [] : [row.country])),
  };
}

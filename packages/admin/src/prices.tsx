import { amountStep } from './format';
import type { PriceRow } from './price-rows';
import { PriceField, RowButton, TextField } from './ui';

/**
 * A record's prices: the seed price (`price`, in the shop's default currency) and a row per other currency, each
 * a currency code and an amount, added and removed here. Errors of the API show at their row (`prices.N.amount`).
 */
export function PricesEditor({
  label,
  price,
  onPrice,
  rows,
  onRows,
  defaultCurrency,
  fields,
  priceHint,
  min = '0.01',
}: {
  label: string;
  price: string;
  onPrice: (price: string) => void;
  rows: PriceRow[];
  onRows: (rows: PriceRow[]) => void;
  defaultCurrency: string | null;
  fields: Record<string, string>;
  priceHint?: string;
  min?: string;
}) {
  const change = (index: number, changes: Partial<PriceRow>) =>
    onRows(rows.map((row, at) => (at === index ? { ...row, ...changes } : row)));
  const code = defaultCurrency?.toUpperCase();
  return (
    <fieldset className="prices">
      <legend>{label === 'Price' ? 'Prices' : `${label}s`}</legend>
      <PriceField
        label={label}
        required
        min={min}
        step={amountStep(defaultCurrency)}
        hint={[code !== undefined ? `In ${code}, the shop's default currency.` : '', priceHint ?? '']
          .filter(Boolean)
          .join(' ')}
        value={price}
        error={fields.price}
        onChange={(event) => onPrice(event.target.value)}
      />
      {rows.map((row, index) => {
        const name = row.currency.trim() === '' ? `price ${index + 2}` : `price in ${row.currency.trim()}`;
        return (
          <div key={index} role="group" aria-label={`${label} ${index + 2}`} className="form-row">
            <TextField
              label={`Currency of ${label.toLowerCase()} ${index + 2}`}
              hint="ISO 4217, e.g. EUR"
              required
              maxLength={3}
              autoCapitalize="characters"
              value={row.currency}
              error={fields[`prices.${index}.currency_code`]}
              onChange={(event) => change(index, { currency: event.target.value.toUpperCase() })}
            />
            <PriceField
              label={`Amount of ${label.toLowerCase()} ${index + 2}`}
              required
              min={min}
              step={amountStep(row.currency.trim() === '' ? null : row.currency.trim())}
              value={row.amount}
              error={fields[`prices.${index}.amount`]}
              onChange={(event) => change(index, { amount: event.target.value })}
            />
            <RowButton
              label="Remove"
              of={name}
              onClick={() => onRows(rows.filter((_, at) => at !== index))}
            />
          </div>
        );
      })}
      {fields.prices !== undefined && <p className="field-error">{fields.prices}</p>}
      <div>
        <button type="button" onClick={() => onRows([...rows, { currency: '', amount: '' }])}>
          Add a price in another currency
        </button>
      </div>
    </fieldset>
  );
}

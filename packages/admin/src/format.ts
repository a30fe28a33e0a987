// Amounts come from the API as decimal numbers in major units of their currency (59.97 EUR, 1999 JPY), never
// minor units. An order's amounts are in the order's own currency (`currency_code`), which need not be the shop's.

/** An amount in a currency (an order's, or the shop's); without a known currency code, the number with two decimals. */
export function formatMoney(amount: number, currency: string | null): string {
  if (currency === null) return amount.toFixed(2);
  return new Intl.NumberFormat(undefined, { style: 'currency', currency: currency.toUpperCase() }).format(
    amount,
  );
}

/** How many decimals a currency's amounts have (2 for EUR, 0 for JPY), as Intl knows it; 2 when unknown. */
export function minorDigits(currency: string | null): number {
  if (currency === null || !/^[a-z]{3}$/i.test(currency)) return 2;
  try {
    return (
      new Intl.NumberFormat('en', { style: 'currency', currency: currency.toUpperCase() }).resolvedOptions()
        .maximumFractionDigits ?? 2
    );
  } catch {
    return 2;
  }
}

/** A number input's `step` for amounts of a currency: `0.01` for EUR, `1` for JPY. */
export function amountStep(currency: string | null): string {
  return (10 ** -minorDigits(currency)).toFixed(minorDigits(currency));
}

/** A rate in percent as people write it: `19 %`, `7.25 %`. */
export function formatRate(rate: number): string {
  return `${rate.toLocaleString(undefined, { maximumFractionDigits: 4 })} %`;
}

/**
 * A list's `meta.total` as a count: `10,000+` when the API capped it (`total_exact: false`, a product search
 * with more matches than the limit), else the number.
 */
export function formatTotal(meta: { total: number; total_exact?: boolean }): string {
  return `${meta.total.toLocaleString()}${meta.total_exact === false ? '+' : ''}`;
}

/** A timestamp of the API (ISO 8601 UTC) in the browser's time zone. */
export function formatDateTime(iso: string | null): string {
  if (iso === null) return '';
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** The start of a local calendar day (`2026-11-25` from a date input) as an ISO timestamp. */
export function startOfLocalDay(date: string): string {
  const [year, month, day] = date.split('-').map(Number);
  return new Date(year, month - 1, day).toISOString();
}

/** The start of the local day after `date`: the exclusive end of a range that includes `date`. */
export function startOfNextLocalDay(date: string): string {
  const [year, month, day] = date.split('-').map(Number);
  return new Date(year, month - 1, day + 1).toISOString();
}

/** Today's local date as a date input writes it (`2026-11-25`). */
export function localToday(now = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

/** `pending` → `Pending`, `partially_refunded` → `Partially refunded`. */
export function humanize(value: string): string {
  const words = value.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** `de, AT  fr` → `['DE', 'AT', 'FR']`: the codes as the API wants them (it checks each one). */
export function countryList(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((code) => code.trim().toUpperCase())
    .filter((code) => code !== '');
}

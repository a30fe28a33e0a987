/** An amount in the currency the API answered it in (major units: `19.99` EUR, `2900` JPY). */
export function money(amount: number, currencyCode: string): string {
  // One fixed locale, so that the server's HTML and the browser's render agree.
  return new Intl.NumberFormat('en-US', { style: 'currency', currency: currencyCode.toUpperCase() }).format(
    amount,
  );
}

/** An uploaded file's path (`2026/11/….png`) as the browser fetches it, through the API's rewrite. */
export const uploadUrl = (path: string) => `/api/v1/uploads/${path}`;

export function date(iso: string): string {
  return new Intl.DateTimeFormat('en-GB', {
    dateStyle: 'medium',
    timeStyle: 'short',
    timeZone: 'UTC',
  }).format(new Date(iso));
}
